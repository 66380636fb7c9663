// SwiftUI stand-in (never shipped): the system file importer and exporter, and the content
// types they take. On iOS `UTType` comes from UniformTypeIdentifiers; a view names it only as an
// implicit member (`allowedContentTypes: [.data]`), so the stand-in declares the common ones.

public struct UTType: Hashable, Sendable {
    public let identifier: String
    public nonisolated init?(_ identifier: String) { self.identifier = identifier }
    public nonisolated init(exportedAs identifier: String) { self.identifier = identifier }
    public nonisolated init(importedAs identifier: String) { self.identifier = identifier }
    public nonisolated init?(filenameExtension: String) { self.identifier = "public." + filenameExtension }
    nonisolated init(known identifier: String) { self.identifier = identifier }
    public var preferredFilenameExtension: String? { nil }
    public func conforms(to type: UTType) -> Bool { identifier == type.identifier }

    public static let item = UTType(known: "public.item")
    public static let content = UTType(known: "public.content")
    public static let data = UTType(known: "public.data")
    public static let text = UTType(known: "public.text")
    public static let plainText = UTType(known: "public.plain-text")
    public static let utf8PlainText = UTType(known: "public.utf8-plain-text")
    public static let json = UTType(known: "public.json")
    public static let image = UTType(known: "public.image")
    public static let png = UTType(known: "public.png")
    public static let pdf = UTType(known: "com.adobe.pdf")
    public static let url = UTType(known: "public.url")
    public static let fileURL = UTType(known: "public.file-url")
    public static let folder = UTType(known: "public.folder")
}

/// A document the file exporter writes (`fileExporter(isPresented:document:contentType:...)`).
public protocol FileDocument {
    static var readableContentTypes: [UTType] { get }
    static var writableContentTypes: [UTType] { get }
    init(configuration: ReadConfiguration) throws
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper
    typealias ReadConfiguration = FileDocumentReadConfiguration
    typealias WriteConfiguration = FileDocumentWriteConfiguration
}

extension FileDocument {
    public static var writableContentTypes: [UTType] { readableContentTypes }
}

public struct FileDocumentReadConfiguration {
    public let contentType: UTType
    public let file: FileWrapper
}

public struct FileDocumentWriteConfiguration {
    public let contentType: UTType
    public let existingFile: FileWrapper?
}

extension View {
    public nonisolated func fileImporter(
        isPresented: Binding<Bool>, allowedContentTypes: [UTType],
        onCompletion: @escaping (_ result: Result<URL, any Error>) -> Void
    ) -> some View { _modified() }
    public nonisolated func fileImporter(
        isPresented: Binding<Bool>, allowedContentTypes: [UTType], allowsMultipleSelection: Bool,
        onCompletion: @escaping (_ result: Result<[URL], any Error>) -> Void
    ) -> some View { _modified() }
    public nonisolated func fileExporter<D: FileDocument>(
        isPresented: Binding<Bool>, document: D?, contentType: UTType, defaultFilename: String? = nil,
        onCompletion: @escaping (_ result: Result<URL, any Error>) -> Void
    ) -> some View { _modified() }
    public nonisolated func fileMover(
        isPresented: Binding<Bool>, file: URL?, onCompletion: @escaping (_ result: Result<URL, any Error>) -> Void
    ) -> some View { _modified() }
}

#if !canImport(Darwin)
/// Foundation's file wrapper, absent from swift-corelibs-foundation (Apple's Foundation has it).
open class FileWrapper {
    public init(regularFileWithContents contents: Data) {}
    open var regularFileContents: Data? { nil }
    open var filename: String?
    open var preferredFilename: String?
}
#endif
