import Testing
@testable import SKANCore

@Suite("AAKField: the key table")
struct AAKFieldKeyTableTests {
    @Test("each key's index in the table is its field's ordinal, and unknown keys are nil")
    func ordinals() {
        for field in AAKField.allCases {
            #expect(AAKField(key: field.rawValue) == field)
            #expect(AAKField.keyTable.index(of: field.rawValue) == field.ordinal)
        }
        #expect(AAKField(key: "did-wi") == nil)
        #expect(AAKField(key: "did-win ") == nil)
        #expect(AAKField(key: "") == nil)
    }
}
