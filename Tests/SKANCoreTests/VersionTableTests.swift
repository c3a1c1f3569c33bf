import SKANCore
import Testing

/// Tables the verifier indexes by version, held to the versions' declared order and spec §10.7.
@Suite("Version tables")
struct VersionTableTests {
    @Test("a verifier tries each version's own layout first, and only 2.2 has a second (spec §10.7)")
    func layoutsToTry() {
        for version in SKANVersion.allCases {
            #expect(version.layoutsToTry.first == version.layout)
            #expect(version.layoutsToTry.dropFirst().elementsEqual(version == .v2_2 ? [.v2_2SignedAs2_0] : []))
        }
    }

    @Test("each version's ordinal is its position among all versions, oldest first")
    func versionOrdinals() {
        #expect(SKANVersion.allCases.map(\.ordinal) == Array(SKANVersion.allCases.indices))
        #expect(SKANVersion.allCases == SKANVersion.allCases.sorted())
    }

    @Test("the parser's table of field positions has a slot for every field")
    func fieldSlots() {
        #expect(PostbackField.allCases.count <= SIMD16<Int32>.scalarCount)
    }
}
