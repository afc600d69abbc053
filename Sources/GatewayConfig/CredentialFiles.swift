import Foundation

/// Strict reading of the files that hold secrets: the broker and store password files, the TLS
/// CA, certificate and key, and the HTTP access tokens. A file that cannot be read, is not UTF-8 or holds no
/// credential is a configuration error naming its key -- never a silent fallback (a password
/// file read with `try?` would mean connecting with no password).
package enum CredentialFiles {
    /// The password: the first line of `path`, without its line break.
    /// - Returns: the password, or a sentence saying why the file is unusable.
    package static func password(at path: String) -> Result<String, CredentialFileProblem> {
        let text: String
        switch utf8Text(at: path) {
        case .success(let contents): text = contents
        case .failure(let problem): return .failure(problem)
        }
        // "\r\n" is one Character and a newline, so CR LF files work too.
        guard let line = text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first, !line.isEmpty
        else {
            return .failure(CredentialFileProblem("file '\(path)' has an empty first line; it must hold the password"))
        }
        return .success(String(line))
    }

    /// The shortest HTTP access token accepted: 16 characters (96 bits and more from a random
    /// generator such as `openssl rand -hex 16`), so a guessable word is refused at start.
    package static let minimumTokenLength = 16

    /// HTTP access tokens: one per line; blank lines and lines starting with `#` are skipped,
    /// spaces around a token are not part of it.
    /// - Returns: the tokens (at least one), or a sentence saying why the file is unusable.
    package static func tokens(at path: String) -> Result<[String], CredentialFileProblem> {
        let text: String
        switch utf8Text(at: path) {
        case .success(let contents): text = contents
        case .failure(let problem): return .failure(problem)
        }
        var tokens: [String] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            // What a client can send in an Authorization header: visible ASCII, no spaces.
            guard line.allSatisfy({ $0.asciiValue.map { $0 > 0x20 && $0 < 0x7F } == true }) else {
                return .failure(CredentialFileProblem("file '\(path)' line \(index + 1): a token must be visible ASCII without spaces"))
            }
            guard line.count >= minimumTokenLength else {
                return .failure(CredentialFileProblem("file '\(path)' line \(index + 1): a token must have at least \(minimumTokenLength) characters, got \(line.count)"))
            }
            tokens.append(line)
        }
        guard !tokens.isEmpty else { return .failure(CredentialFileProblem("file '\(path)' holds no token (one per line; # starts a comment)")) }
        return .success(tokens)
    }

    /// Why a PEM file (CA, certificate or key) is unusable, or nil when it is readable UTF-8
    /// text with a PEM block.
    package static func pemProblem(at path: String) -> CredentialFileProblem? {
        switch utf8Text(at: path) {
        case .failure(let problem): return problem
        case .success(let text):
            return text.contains("-----BEGIN ") ? nil : CredentialFileProblem("file '\(path)' holds no PEM block (-----BEGIN ...)")
        }
    }

    /// Why the PEM file at `path` is unusable, or nil when it is usable or not set: a key's check.
    package static func pemProblem(ofOptional path: String?) -> String? {
        path.flatMap { pemProblem(at: $0)?.message }
    }

    private static func utf8Text(at path: String) -> Result<String, CredentialFileProblem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(CredentialFileProblem("file '\(path)' does not exist"))
        }
        if isDirectory.boolValue { return .failure(CredentialFileProblem("'\(path)' is a directory, not a file")) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(CredentialFileProblem("file '\(path)' is not readable (permissions?)"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(CredentialFileProblem("file '\(path)' is not UTF-8 text"))
        }
        return .success(text)
    }
}

/// Why a credential file cannot be used; the caller adds the key that names the file.
package struct CredentialFileProblem: Error, Sendable, Equatable {
    /// A sentence naming the file and the problem.
    package var message: String
    package init(_ message: String) { self.message = message }
}
