/// The functions and objects an ELF shared library exports: the defined, global or weak, default- or
/// protected-visibility
/// entries of its dynamic symbol table (`SHT_DYNSYM`), read from the file's bytes (ELF-64 little-endian, as
/// on x86-64 and AArch64 Linux; the System V gABI, "Symbol Table").
///
/// `plugins validate` compares them with what the ABI and the manifest need: a plugin should export its
/// entry symbol (or its declared functions) and nothing else, or its internals can collide with another
/// library's and its size grows.
enum ELFExports {
    /// The exported names, in symbol-table order; `nil` when the bytes are not an ELF-64 little-endian file
    /// with a dynamic symbol table, or the table is cut short.
    static func names(in bytes: [UInt8]) -> [String]? {
        bytes.withUnsafeBytes { file -> [String]? in
            func u16(_ at: Int) -> Int? { at + 2 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) : nil }
            func u32(_ at: Int) -> Int? { at + 4 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) : nil }
            func u64(_ at: Int) -> Int? {
                guard at + 8 <= file.count else { return nil }
                let value = file.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
                return value <= UInt64(Int.max) ? Int(value) : nil
            }
            // e_ident: "\x7FELF", class 2 (64-bit), data 1 (little-endian).
            guard file.count >= 64, file[0] == 0x7F, file[1] == 0x45, file[2] == 0x4C, file[3] == 0x46, file[4] == 2,
                file[5] == 1, let sectionTable = u64(0x28), let entrySize = u16(0x3A), let count = u16(0x3C),
                entrySize >= 64
            else { return nil }
            func section(_ i: Int) -> (type: Int, offset: Int, size: Int, link: Int, entrySize: Int)? {
                let at = sectionTable + i * entrySize
                guard let type = u32(at + 4), let offset = u64(at + 24), let size = u64(at + 32), let link = u32(at + 40),
                    let entrySize = u64(at + 56)
                else { return nil }
                return (type, offset, size, link, entrySize)
            }
            let dynamicSymbols = 11  // SHT_DYNSYM
            guard let symbols = (0..<count).lazy.compactMap({ section($0) }).first(where: { $0.type == dynamicSymbols }),
                symbols.entrySize >= 24, let strings = section(symbols.link), strings.offset + strings.size <= file.count,
                symbols.offset + symbols.size <= file.count
            else { return nil }
            var names: [String] = []
            for index in 1..<max(1, symbols.size / symbols.entrySize) {
                let at = symbols.offset + index * symbols.entrySize
                guard let nameOffset = u32(at), let sectionIndex = u16(at + 6) else { return nil }
                let info = file[at + 4]
                let visibility = file[at + 5] & 0x3
                let binding = info >> 4  // STB_GLOBAL 1, STB_WEAK 2
                guard sectionIndex != 0, binding == 1 || binding == 2, visibility == 0 || visibility == 3, nameOffset < strings.size else {
                    continue
                }
                var end = strings.offset + nameOffset
                while end < strings.offset + strings.size, file[end] != 0 { end += 1 }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: file[(strings.offset + nameOffset)..<end]), as: UTF8.self)
                if !name.isEmpty { names.append(name) }
            }
            return names
        }
    }
}

/// What an ELF shared library asks the dynamic linker to load with it: its `DT_NEEDED` names and its run
/// paths (`DT_RUNPATH`, `DT_RPATH`, colon-separated), from the dynamic section (`SHT_DYNAMIC`) and the string
/// table it links (ELF-64 little-endian; the System V gABI, "Dynamic Section").
enum ELFDependencies {
    /// The needed names and the run-path entries, or `nil` when the bytes are not an ELF-64 little-endian file
    /// with a dynamic section, or it is cut short.
    static func read(_ file: UnsafeRawBufferPointer) -> (needed: [String], runPaths: [String])? {
        func u16(_ at: Int) -> Int? { at + 2 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) : nil }
        func u32(_ at: Int) -> Int? { at + 4 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) : nil }
        func u64(_ at: Int) -> UInt64? { at + 8 <= file.count ? file.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian : nil }
        guard file.count >= 64, file[0] == 0x7F, file[1] == 0x45, file[2] == 0x4C, file[3] == 0x46, file[4] == 2, file[5] == 1,
            let table = u64(0x28).map(Int.init), let entrySize = u16(0x3A), let count = u16(0x3C), entrySize >= 64
        else { return nil }
        func section(_ i: Int) -> (type: Int, offset: Int, size: Int, link: Int)? {
            let at = table + i * entrySize
            guard let type = u32(at + 4), let offset = u64(at + 24), let size = u64(at + 32), let link = u32(at + 40),
                offset <= UInt64(file.count), size <= UInt64(file.count)
            else { return nil }
            return (type, Int(offset), Int(size), link)
        }
        guard let dynamic = (0..<count).lazy.compactMap({ section($0) }).first(where: { $0.type == 6 }),  // SHT_DYNAMIC
            let strings = section(dynamic.link), strings.offset + strings.size <= file.count,
            dynamic.offset + dynamic.size <= file.count
        else { return nil }
        func string(_ offset: UInt64) -> String? {
            guard offset < UInt64(strings.size) else { return nil }
            var end = strings.offset + Int(offset)
            while end < strings.offset + strings.size, file[end] != 0 { end += 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: file[(strings.offset + Int(offset))..<end]), as: UTF8.self)
        }
        var needed: [String] = []
        var runPaths: [String] = []
        var at = dynamic.offset
        while at + 16 <= dynamic.offset + dynamic.size {
            guard let tag = u64(at), let value = u64(at + 8) else { return nil }
            if tag == 0 { break }  // DT_NULL
            switch tag {
            case 1: if let name = string(value) { needed.append(name) }  // DT_NEEDED
            case 15, 29:  // DT_RPATH, DT_RUNPATH
                if let paths = string(value) { runPaths += paths.split(separator: ":").map(String.init) }
            default: break
            }
            at += 16
        }
        return (needed, runPaths)
    }
}
