/// A read-only view of an ELF-64 little-endian file (x86-64 and AArch64 Linux) in memory: its section headers
/// and the strings of a string table, bounds-checked everywhere (a malformed file gives `nil`, never a trap).
/// The System V gABI, "ELF Header" and "Sections".
struct ELFFile {
    /// One section header's fields that the readers below use.
    struct Section {
        var type: Int
        var offset: Int
        var size: Int
        var link: Int
        var entrySize: Int
    }

    private let file: UnsafeRawBufferPointer
    /// The section headers, in file order.
    let sections: [Section]

    /// The file's sections, or `nil` when `file` is not an ELF-64 little-endian file or its headers are cut short.
    init?(_ file: UnsafeRawBufferPointer) {
        self.file = file
        // e_ident: "\x7FELF", class 2 (64-bit), data 1 (little-endian).
        guard file.count >= 64, file[0] == 0x7F, file[1] == 0x45, file[2] == 0x4C, file[3] == 0x46, file[4] == 2,
            file[5] == 1
        else { return nil }
        let view = Bytes(file: file)
        guard let table = view.u64(0x28), let entrySize = view.u16(0x3A), let count = view.u16(0x3C), entrySize >= 64
        else { return nil }
        var sections: [Section] = []
        for i in 0..<count {
            let at = table + i * entrySize
            guard let type = view.u32(at + 4), let offset = view.u64(at + 24), let size = view.u64(at + 32),
                let link = view.u32(at + 40), let entrySize = view.u64(at + 56), offset <= file.count,
                size <= file.count - offset
            else { return nil }
            sections.append(Section(type: type, offset: offset, size: size, link: link, entrySize: entrySize))
        }
        self.sections = sections
    }

    /// The first section of a type (`SHT_DYNSYM` 11, `SHT_DYNAMIC` 6) and the string table it links.
    func section(ofType type: Int) -> (section: Section, strings: Section)? {
        guard let section = sections.first(where: { $0.type == type }), sections.indices.contains(section.link) else {
            return nil
        }
        return (section, sections[section.link])
    }

    /// The NUL-terminated string at `offset` in a string table, or `nil` past its end.
    func string(in table: Section, at offset: Int) -> String? {
        guard offset >= 0, offset < table.size else { return nil }
        var end = table.offset + offset
        while end < table.offset + table.size, file[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: file[(table.offset + offset)..<end]), as: UTF8.self)
    }

    /// Little-endian reads at byte offsets, `nil` past the end (or, for 64 bits, beyond `Int.max`).
    var bytes: Bytes { Bytes(file: file) }

    struct Bytes {
        let file: UnsafeRawBufferPointer
        func u8(_ at: Int) -> Int? { at >= 0 && at < file.count ? Int(file[at]) : nil }
        func u16(_ at: Int) -> Int? {
            at >= 0 && at + 2 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) : nil
        }
        func u32(_ at: Int) -> Int? {
            at >= 0 && at + 4 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) : nil
        }
        func u64(_ at: Int) -> Int? {
            guard at >= 0, at + 8 <= file.count else { return nil }
            let value = file.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
            return value <= UInt64(Int.max) ? Int(value) : nil
        }
    }
}

/// The functions and objects an ELF shared library exports: the defined, global or weak, default- or
/// protected-visibility entries of its dynamic symbol table (`SHT_DYNSYM`). The System V gABI, "Symbol Table".
///
/// `plugins validate` compares them with what the ABI and the manifest need: a plugin should export its
/// entry symbol (or its declared functions) and nothing else, or its internals can collide with another
/// library's and its size grows.
enum ELFExports {
    /// The exported names, in symbol-table order; `nil` when the bytes are not an ELF-64 little-endian file
    /// with a dynamic symbol table, or the table is cut short.
    static func names(in file: UnsafeRawBufferPointer) -> [String]? {
        guard let elf = ELFFile(file), let found = elf.section(ofType: 11), found.section.entrySize >= 24 else { return nil }
        let (symbols, strings) = found
        let bytes = elf.bytes
        var names: [String] = []
        for index in 1..<max(1, symbols.size / symbols.entrySize) {
            let at = symbols.offset + index * symbols.entrySize
            guard let nameOffset = bytes.u32(at), let info = bytes.u8(at + 4), let other = bytes.u8(at + 5),
                let sectionIndex = bytes.u16(at + 6)
            else { return nil }
            let binding = info >> 4  // STB_GLOBAL 1, STB_WEAK 2
            let visibility = other & 0x3  // STV_DEFAULT 0, STV_PROTECTED 3
            guard sectionIndex != 0, binding == 1 || binding == 2, visibility == 0 || visibility == 3,
                let name = elf.string(in: strings, at: nameOffset), !name.isEmpty
            else { continue }
            names.append(name)
        }
        return names
    }

    /// ``names(in:)`` of a byte array.
    static func names(in bytes: [UInt8]) -> [String]? { bytes.withUnsafeBytes { names(in: $0) } }
}

/// What an ELF shared library asks the dynamic linker to load with it: its `DT_NEEDED` names and its run
/// paths (`DT_RUNPATH`, `DT_RPATH`, colon-separated), from the dynamic section (`SHT_DYNAMIC`) and the string
/// table it links. The System V gABI, "Dynamic Section".
enum ELFDependencies {
    /// The needed names and the run-path entries, or `nil` when the bytes are not an ELF-64 little-endian file
    /// with a dynamic section, or it is cut short.
    static func read(_ file: UnsafeRawBufferPointer) -> (needed: [String], runPaths: [String])? {
        guard let elf = ELFFile(file), let found = elf.section(ofType: 6) else { return nil }
        let (dynamic, strings) = found
        let bytes = elf.bytes
        var needed: [String] = []
        var runPaths: [String] = []
        var at = dynamic.offset
        while at + 16 <= dynamic.offset + dynamic.size {
            guard let tag = bytes.u64(at), let value = bytes.u64(at + 8) else { return nil }
            if tag == 0 { break }  // DT_NULL
            switch tag {
            case 1: if let name = elf.string(in: strings, at: value) { needed.append(name) }  // DT_NEEDED
            case 15, 29:  // DT_RPATH, DT_RUNPATH
                if let paths = elf.string(in: strings, at: value) { runPaths += paths.split(separator: ":").map(String.init) }
            default: break
            }
            at += 16
        }
        return (needed, runPaths)
    }
}
