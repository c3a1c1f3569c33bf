import Foundation
import SKANTestSupport

/// Debian's chromium, headless, for the dashboard's browser tests: found (and installed when missing) by
/// `Scripts/browser-test-setup.sh` once per test process. Without it the browser suite is skipped and
/// ``skipReason`` says why; with `SKAN_REQUIRE_BROWSER=1` (which `.ci/run` sets) a missing browser fails the run.
struct HeadlessBrowser: Sendable {
    let path: String

    /// What `--dump-dom` printed after the page's scripts ran, and the console lines the browser logged.
    struct Page: Sendable {
        let dom: String
        let console: [String]
    }

    static let shared: Result<HeadlessBrowser, SetupFailure> = {
        let script = SkanProcess.packageRoot.appendingPathComponent("Scripts/browser-test-setup.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .failure(SetupFailure(reason: "cannot run \(script): \(error)")) }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let line = output.split(separator: "\n").first(where: { $0.hasPrefix("chromium=/") }) else {
            return .failure(SetupFailure(reason: "\(script) failed: \(errors.trimmingCharacters(in: .whitespacesAndNewlines))"))
        }
        return .success(HeadlessBrowser(path: String(line.dropFirst("chromium=".count))))
    }()

    struct SetupFailure: Error, Sendable { let reason: String }

    static var isAvailable: Bool { (try? shared.get()) != nil }
    static var isRequired: Bool { ProcessInfo.processInfo.environment["SKAN_REQUIRE_BROWSER"] == "1" }
    static var skipReason: String? {
        if case .failure(let failure) = shared { return failure.reason }
        return nil
    }

    func arguments(_ extra: [String]) -> [String] {
        // No sandbox: the tests run as root in a container; no GPU, no shared-memory folder of a small size.
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=4000"] + extra
    }

    /// Loads `url` and returns the DOM after its scripts ran, with the page's console lines.
    func load(_ url: String, width: Int = 1280) throws -> Page {
        let (status, stdout, stderr) = try run(arguments(["--window-size=\(width),2000", "--dump-dom", url]))
        guard status == 0 else { throw SetupFailure(reason: "chromium exited \(status) on \(url): \(stderr.suffix(400))") }
        return Page(dom: stdout, console: stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init))
    }

    /// Saves a screenshot of `url` at `width` × `height` to `file`.
    func screenshot(_ url: String, to file: String, width: Int, height: Int) throws {
        let (status, _, stderr) = try run(arguments(["--window-size=\(width),\(height)", "--screenshot=\(file)", url]))
        guard status == 0 else { throw SetupFailure(reason: "chromium exited \(status) taking \(file): \(stderr.suffix(400))") }
    }

    /// Runs chromium with its output in files (a full pipe would stall it) and a profile of its own per run, so that
    /// two runs never share a lock or a cache.
    private func run(_ arguments: [String]) throws -> (Int32, String, String) {
        try withTemporaryFolder("chromium") { folder in
            let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments + ["--user-data-dir=\(folder.appendingPathComponent("profile").path)"]
            process.standardOutput = FileHandle(forWritingAtPath: outPath)
            process.standardError = FileHandle(forWritingAtPath: errPath)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            process.waitUntilExit()
            watchdog.cancel()
            let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
            return (process.terminationStatus, read(outPath), read(errPath))
        }
    }
}
