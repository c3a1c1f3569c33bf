import Logging
import ServiceLifecycle
import SKANHTTP

extension Collector {
    /// The ports a running collector bound.
    public struct Ports: Sendable {
        /// The device-facing port: postbacks and `/healthz`.
        public let device: Int
        /// The admin port: the operator routes.
        public let admin: Int

        /// The collector's ports among a composition's bound listeners.
        init(_ bound: BoundListeners) {
            device = bound["device"] ?? 0
            admin = bound["admin"] ?? 0
        }
    }

    /// Serves while `body` runs, then shuts down as on SIGTERM (in-flight requests finish, queued postbacks
    /// commit) and closes the store. `body` receives the bound device port, so the configuration may ask for port 0.
    ///
    /// For embedding the collector in a program that drives it, such as `skan demo` and end-to-end tests.
    public func serve<Result: Sendable>(
        whileRunning body: @escaping @Sendable (Int) async throws -> Result
    ) async throws -> Result {
        try await serve(onPorts: { ports in try await body(ports.device) })
    }

    /// As ``serve(whileRunning:)``, with both bound ports: the device port and the admin port.
    public func serve<Result: Sendable>(
        onPorts body: @escaping @Sendable (Ports) async throws -> Result
    ) async throws -> Result {
        try await composition().serve { bound in try await body(Ports(bound)) }
    }
}
