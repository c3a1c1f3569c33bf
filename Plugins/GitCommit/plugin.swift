import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into the target before every build: the commit the sources were checked out at, so
/// `skan --version` can name it.
///
/// A prebuild command rather than a build command: SwiftPM reruns a build command only when its declared inputs
/// change, and a new commit touches no file the plugin could name reliably (worktrees, packed refs, detached heads).
/// It runs `/bin/sh` (a prebuild command may not run an executable built from this package), and never fails the
/// build: without git, outside a checkout, or when the package is not tracked by the enclosing repository (a
/// tarball unpacked inside another project) the commit is "unknown". The file is replaced only when its text
/// changes, so a build at the same commit recompiles nothing.
@main
struct GitCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        return [
            .prebuildCommand(
                displayName: "Recording the git commit of \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "git-commit", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output
            ),
        ]
    }

    /// `$1` is the package folder, `$2` the folder to write into.
    static let script = #"""
        package="$1"; out="$2"
        mkdir -p "$out" || exit 0
        commit=unknown
        if command -v git >/dev/null 2>&1 \
            && git -C "$package" ls-files --error-unmatch Package.swift >/dev/null 2>&1; then
          commit=$(git -C "$package" rev-parse --short HEAD 2>/dev/null) || commit=unknown
        fi
        case "$commit" in ''|*[!0-9a-f]*) commit=unknown ;; esac
        tmp="$out/.BuildCommit.swift.$$"
        {
          echo '// Written by the GitCommit build plugin (Plugins/GitCommit) before every build; do not edit.'
          echo 'enum BuildCommit {'
          echo '    /// `git rev-parse --short HEAD` where this binary was built, or "unknown" outside a git checkout.'
          echo "    static let short = \"$commit\""
          echo '}'
        } > "$tmp" || exit 0
        if cmp -s "$tmp" "$out/BuildCommit.swift"; then rm -f "$tmp"; else mv -f "$tmp" "$out/BuildCommit.swift"; fi
        exit 0
        """#
}
