import SKANCore

/// JSON text helpers shared by the output writers.
enum SKANJSON {
    static func quoted(_ text: String) -> String { JSONWriter.quoted(text) }
}
