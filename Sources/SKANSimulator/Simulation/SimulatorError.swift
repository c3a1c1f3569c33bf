import SKANCore

/// The one error type of `SKANSimulator` (SKANCore's `DomainError` shape): a code and a reason that names the
/// file, the JSON path of the bad field and what was expected.
public typealias SimulatorError = DomainError<SimulatorErrorDomain>

/// The domain of ``SimulatorError``.
public enum SimulatorErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == SimulatorErrorDomain {
    /// The campaign file cannot be read, or a field in it is missing or wrong.
    public static let invalidCampaign = Self("invalid-campaign")
    /// A key named by the campaign cannot be read or does not fit its role.
    public static let invalidKey = Self("invalid-key")
    /// Signing, writing or reading the output failed.
    public static let outputFailure = Self("output-failure")
}
