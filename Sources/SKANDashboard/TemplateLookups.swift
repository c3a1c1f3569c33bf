import Mustache

// The templates read every cell of every table by name. Without these, swift-mustache finds a name by reflecting
// the value (`Mirror`), and a name a cell lacks (`detail`, nil on most cells) by reflecting each value up the
// context stack, the whole page included: over 10,000,000 postbacks that was half of `/`'s time (perf: 52 % of
// samples in `Mirror.getValue(forKey:)` under `Template.render`). Each lookup here answers what reflection would
// for a stored property (an optional's value, or nil), and nil for any other name, as reflection does;
// TemplateLookupTests checks every stored property against reflection, so one added later cannot be forgotten.

extension PanelTable.Cell: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "text": text
        case "numeric": numeric
        case "detail": detail
        default: nil
        }
    }
}

extension PanelTable.Row: MustacheParent {
    func child(named name: String) -> Any? {
        name == "cells" ? cells : nil
    }
}

extension PanelTable: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "columns": columns
        case "rows": rows
        default: nil
        }
    }
}

extension Panel: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "note": note
        case "chartJSON": chartJSON
        case "table": table
        case "empty": empty
        case "csvLink": csvLink
        case "command": command
        default: nil
        }
    }
}

extension PageContent: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "nav": nav
        case "showsFilters": showsFilters
        case "from": from
        case "to": to
        case "networks": networks
        case "campaigns": campaigns
        case "networkOptions": networkOptions
        case "campaignOptions": campaignOptions
        case "windows": windows
        case "stacks": stacks
        case "showsStack": showsStack
        case "tiles": tiles
        case "emptyNote": emptyNote
        case "panels": panels
        case "refusals": refusals
        case "hasRefusals": hasRefusals
        case "conflicts": conflicts
        case "hasConflicts": hasConflicts
        case "unfilteredNote": unfilteredNote
        case "integrityCommand": integrityCommand
        case "isLive": isLive
        case "hasCharts": hasCharts
        case "missingCharts": missingCharts
        case "relayRows": relayRows
        case "hasRelayRows": hasRelayRows
        case "deadLetters": deadLetters
        case "hasDeadLetters": hasDeadLetters
        case "relayNote": relayNote
        case "relayRetryCommand": relayRetryCommand
        default: nil
        }
    }
}
