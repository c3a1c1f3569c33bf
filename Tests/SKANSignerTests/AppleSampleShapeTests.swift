import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCore
import SKANSigner
import Testing

/// What the service signs for the field values of Apple's three sample impressions has each sample's members (in
/// its order for the SKAdImpression and web shapes; a StoreKit parameters dictionary is read by key) and the same
/// signed string (only the signature differs: the key is ours, not Apple's sample key).
@Suite("Signer output against Apple's sample impressions")
struct AppleSampleShapeTests {
    static let vectors = SignerRouteTests.root.appendingPathComponent("Tests/SKANCoreTests/Vectors/impressions")

    /// The sample's members in file order, its signed string, and the request that asks for the same impression.
    static func sample(_ name: String) throws -> (members: [String], signedString: String, request: String) {
        let bytes = Array(try Data(contentsOf: vectors.appendingPathComponent(name)))
        let top = try JSONObjectReader.members(of: bytes).get()
        guard case .object(let published)? = top.first(where: { $0.key == "impression_as_published" })?.value,
              case .string(let signedString)? = top.first(where: { $0.key == "signed_string" })?.value else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let members = try JSONObjectReader.members(of: Array(published.utf8)).get().map(\.key)
        let fields = signedString.components(separatedBy: "\u{2063}")
        let request: String
        switch name {
        case let file where file.contains("web"):
            request = #"{"version":"4.0","ad-network-id":"\#(fields[1])","source-identifier":\#(fields[2]),"itunes-item-id":\#(fields[3]),"nonce":"\#(fields[4])","source-domain":"\#(fields[5])","timestamp":\#(fields[7]),"format":"web"}"#
        case let file where file.contains("view-through"):
            request = #"{"version":"4.0","ad-network-id":"\#(fields[1])","source-identifier":\#(fields[2]),"itunes-item-id":\#(fields[3]),"nonce":"\#(fields[4])","source-app-id":\#(fields[5]),"fidelity-type":\#(fields[6]),"timestamp":\#(fields[7]),"format":"skadimpression"}"#
        default:
            request = #"{"version":"4.0","ad-network-id":"\#(fields[1])","source-identifier":\#(fields[2]),"itunes-item-id":\#(fields[3]),"nonce":"\#(fields[4])","source-app-id":\#(fields[5]),"fidelity-type":\#(fields[6]),"timestamp":\#(fields[7]),"format":"storekit"}"#
        }
        return (members, signedString, request)
    }

    @Test("members, their order and the signed string match the sample",
          arguments: ["impression-4.0-storekit-rendered-apple-sample.json", "impression-4.0-view-through-apple-sample.json",
                      "impression-4.0-web-apple-sample.json"])
    func shape(name: String) async throws {
        let (members, signedString, request) = try Self.sample(name)
        var keys = SignerKeys()
        let key = try SignerRouteTests.key("ad-network")
        keys.add(key, network: nil)
        let signer = Signer(keys: keys, logger: Logger(label: "test"))
        let router = Router()
        signer.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let reply = try await SignerRouteTests.post(client, request)
            #expect(reply.status == .ok, "\(reply.body)")
            let replyMembers = try JSONObjectReader.members(of: Array(reply.body.utf8)).get().map(\.key)
            if name.contains("storekit") {
                // A StoreKit parameters dictionary is read by key (SKStoreProductParameter... in a dictionary the app
                // passes to StoreKit): its order carries nothing, and ours is the signed order, Apple's sample another.
                #expect(Set(replyMembers) == Set(members) && replyMembers.count == members.count, "\(name)")
            } else {
                #expect(replyMembers == members, "\(name)")
            }
            let signed = try SignedImpression.parse(Array(reply.body.utf8)).get()
            #expect(signed.impression.signedString.bytes == Array(signedString.utf8))
            #expect(ImpressionVerifier(publicKey: key.publicKey).verify(signed) == .valid)
        }
    }
}
