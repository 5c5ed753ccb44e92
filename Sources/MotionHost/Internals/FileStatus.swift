#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The fields of a C `struct stat` that MotionHost uses, with Swift names.
struct FileStatus: Equatable, Sendable {
    /// `st_dev`: the device holding the file.
    var device: UInt64
    /// `st_ino`: the file's inode number on that device.
    var inode: UInt64
    /// `st_mode`: file type and permission bits.
    var mode: UInt32
    /// `st_uid`: the owner's user id.
    var owner: UInt32
    /// `st_size`: bytes.
    var size: Int64
    /// `st_mtim`: last modification, seconds and nanoseconds since 1970.
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64
    /// `st_ctim`: last status change (cannot be set back by `touch`), seconds and nanoseconds.
    var changeSeconds: Int64
    var changeNanoseconds: Int64

    init(_ raw: stat) {
        device = UInt64(raw.st_dev)
        inode = UInt64(raw.st_ino)
        mode = UInt32(raw.st_mode)
        owner = UInt32(raw.st_uid)
        size = Int64(raw.st_size)
        modificationSeconds = Int64(raw.st_mtim.tv_sec)
        modificationNanoseconds = Int64(raw.st_mtim.tv_nsec)
        changeSeconds = Int64(raw.st_ctim.tv_sec)
        changeNanoseconds = Int64(raw.st_ctim.tv_nsec)
    }

    /// `S_ISREG(st_mode)`.
    var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    /// `S_ISDIR(st_mode)`.
    var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    /// `st_mode & (S_IWGRP | S_IWOTH)`: writable by the group or by others.
    var isWritableByGroupOrOthers: Bool { mode & UInt32(S_IWGRP | S_IWOTH) != 0 }
    /// `st_mode & S_ISVTX`: the sticky bit (in a folder, only an entry's owner may remove or rename it).
    var isSticky: Bool { mode & UInt32(S_ISVTX) != 0 }
    /// The permission bits, e.g. `0o755`.
    var permissions: UInt32 { mode & 0o7777 }
}
