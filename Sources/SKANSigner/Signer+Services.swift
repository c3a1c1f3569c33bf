import Hummingbird
import NIOCore
import ServiceLifecycle
import SKANHTTP
import SKANStore

extension Signer {
    /// The signing listener (private): the routes behind ``access``, and ahead of them, unless
    /// ``answersImpressionsOnEventLoop`` is off, the event-loop handler for `POST /v1/impressions`, which leaves a
    /// request the rule refuses to the router's 401.
    public var signingListener: Listener {
        let responder = ImpressionResponder(keys: keys, now: now, makeNonce: makeNonce, signed: signed, refused: refused)
        let (onLoop, date, access) = (answersImpressionsOnEventLoop, HTTPDate(), access)
        let signer = self
        return .private("signer", option: portOption, access: access, port: port, handlers: {
            onLoop ? [EventLoopFastPath(responder, date: date, access: access)] : []
        }) { router in signer.addRoutes(to: router) }
    }

    /// The public listener (device-facing: Safari's `get-signed-payload` and `/healthz`), or `nil` without a
    /// web-ad store or ``publicPort``.
    public var publicListener: Listener? {
        guard let publicPort, webAds != nil else { return nil }
        let signer = self
        return .device("public", option: publicPortOption, host: publicHost, port: publicPort,
                       rateLimit: publicRateLimit) { router in
            signer.addPublicRoutes(to: router)
        }
    }

    /// The signing listener's HTTP application, not yet running, for router-level tests.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        frontDoor.application(for: signingListener, logger: logger, onServerRunning: onServerRunning)
    }

    /// The signer alone in a process's one service group; `skan serve` adds it to the collector's instead.
    public func composition() -> ServiceComposition {
        var composition = ServiceComposition(frontDoor: frontDoor, logger: logger)
        composition.add(self)
        return composition
    }

    /// Serves until SIGINT or SIGTERM; `onRunning` receives the bound ports (`signer`, and `public` when served)
    /// once every listener is up.
    public func run(onRunning: @escaping @Sendable (BoundListeners) async -> Void = { _ in }) async throws {
        try await composition().run(onRunning: onRunning)
    }
}

extension Signer: ComposedPart {
    /// Adds the signer: its web-ad store (migrated before any listener binds, closed after the listeners stop), the
    /// sweep of expired ads (which runs whether or not Safari's listener does, so that registrations expire out of
    /// the store either way), the signing listener and, when configured, the public one.
    public func compose(into composition: inout ServiceComposition) {
        if let webAdStore {
            // Closed once the listeners and the sweep have stopped.
            composition.add(resource: "web-ad store", running: { await webAdStore.run() }) { try await webAdStore.close() }
            composition.beforeServerStarts { try await webAdStore.migrate() }
        }
        if let webAds {
            composition.add(worker: ExpiredWebAds(exchange: webAds, interval: webAdSweepInterval, logger: logger))
        }
        composition.add(signingListener)
        if let publicListener { composition.add(publicListener) }
    }
}
