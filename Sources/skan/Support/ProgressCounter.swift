import Foundation

/// A carriage-return counter on standard error ("simulated 412,000 / 1,000,000 devices (41%)"), for long runs.
///
/// A small counter rather than a progress-bar package: it needs no terminal handling, and a redirect to a file
/// gets at most a hundred short updates. `@unchecked Sendable`: state is guarded by `lock`.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private var shownPercent = -1

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func add(_ devices: Int) {
        guard enabled else { return }
        lock.withLock {
            done += devices
            let percent = done * 100 / max(total, 1)
            guard percent != shownPercent else { return }
            shownPercent = percent
            FileHandle.standardError.write(Data("\rsimulated \(done) / \(total) devices (\(percent)%)".utf8))
        }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
