import Foundation

/// Runs a helper program (a script, `psql`) to its end, with nothing of the test process's but its standard streams.
///
/// Why not Foundation's `Process`: its exit notification never came when both cooperative threads waited on it (the
/// child stayed a zombie and the tests hung). Why close the rest: SwiftNIO opens its sockets without close-on-exec,
/// so a child spawned while the tests run beside it inherits their listening sockets, and one that outlives its
/// spawn (the PostgreSQL script's watchdog lives as long as the test process) keeps such a port listening after
/// the test closed it. A test that later connects to that port is queued by the kernel and never answered: the
/// parallel `swift test` of the front-door, collector and signer suites hung that way, in `ProbeTests`.
public enum ChildProcess {
    /// Runs `executable` with `arguments`, standard input from /dev/null, and returns its exit code, standard output
    /// and standard error. Descriptors other than 0, 1 and 2 are closed in the child.
    public static func run(_ executable: String, _ arguments: [String]) throws(ChildProcessError)
        -> (exitCode: Int32, output: String, errors: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("skan-run-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw ChildProcessError("cannot run \(executable): this libc cannot close the descriptors a child inherits")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChildProcessError("cannot run \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitCode, output, errors)
    }
}

extension ChildProcess {
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time: Swift's Glibc
    /// module does not declare it.
    fileprivate static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}

/// A helper program could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed, with the error number.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
