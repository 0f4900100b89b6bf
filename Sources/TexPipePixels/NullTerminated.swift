extension String {
    /// The text of a NUL-terminated C buffer (a shim's message, mkstemp's file name).
    package init(nullTerminated chars: [CChar]) {
        self.init(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
