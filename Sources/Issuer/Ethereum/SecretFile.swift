#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold a secret: the escrow operator's key here, and in `wallet-server` the
/// issuer's keys and the TLS private key. One check for all of them, so a key file readable by
/// others is refused the same way, with the same one-line fix, wherever it is read.
public enum SecretFile {
    /// Reads a secret file of at most `maxBytes` bytes. Refuses a file that group or others may
    /// read or write (mode & 0o077 ≠ 0: `EthereumError.insecureKeyFile`, whose message names the
    /// `chmod 600` that fixes it), one that is not a regular file, or one that is too long.
    ///
    /// The opened file is checked (fstat), so the file whose mode was checked is the file that
    /// is read. Symbolic links are followed: mounted secrets are often links.
    public static func read(_ path: String, maxBytes: Int) throws(EthereumError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .keyFile(path: path, reason: "cannot read it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .keyFile(path: path, reason: "cannot read it (\(String(cString: strerror(errno))))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .keyFile(path: path, reason: "not a regular file") }
        let mode = UInt16(truncatingIfNeeded: info.st_mode & 0o7777)
        guard mode & 0o077 == 0 else { throw .insecureKeyFile(path: path, mode: mode) }
        guard info.st_size <= maxBytes else {
            throw .keyFile(path: path, reason: "\(info.st_size) bytes is too long for this key file (at most \(maxBytes))")
        }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw .keyFile(path: path, reason: "cannot read it (\(String(cString: strerror(errno))))") }
            if count == 0 { break }
            contents += buffer[0..<count]
            guard contents.count <= maxBytes else {
                throw .keyFile(path: path, reason: "it grew past \(maxBytes) bytes while being read")
            }
        }
        return contents
    }

    /// Creates `path` (never overwriting: O_EXCL) holding `bytes`, mode 0600 whatever the
    /// process's umask (a umask can only take bits away; fchmod sets exactly 0600, so a
    /// restrictive umask such as 0377 cannot leave a key its owner cannot read), and syncs it.
    public static func create(_ path: String, bytes: [UInt8]) throws(EthereumError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .keyFile(path: path, reason: "cannot create it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else {
            throw .keyFile(path: path, reason: "cannot set mode 0600 (\(String(cString: strerror(errno))))")
        }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            throw .keyFile(path: path, reason: "cannot write it (\(String(cString: strerror(errno))))")
        }
    }
}

/// The C library's read(2) (inside `SecretFile`, `read` names the static method).
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
