import Foundation
import Testing

@testable import BBSArchive

/// A small PDF written object by object, with its cross-reference table,
/// as a generator writes one; `stream` objects take bytes as they are.
struct PDFWriter {
    private var objects: [(number: Int, body: Data)] = []
    /// Objects inside object streams: the stream's number, and their place in it.
    private var inner: [Int: (stream: Int, index: Int)] = [:]

    mutating func add(_ number: Int, _ text: String) {
        objects.append((number, Data(text.utf8)))
    }

    /// A stream object: `dictionary` gets its `/Length`.
    mutating func add(_ number: Int, stream dictionary: String, _ data: Data) {
        var body = Data("<< \(dictionary) /Length \(data.count) >>\nstream\n".utf8)
        body += data
        body += Data("\nendstream".utf8)
        objects.append((number, body))
    }

    /// An object stream holding `inner` (number, text), deflated, through
    /// a PNG "up" predictor of `columns` bytes a row when asked.
    mutating func add(_ number: Int, objectStream inner: [(Int, String)], columns: Int? = nil, filter: String? = nil) {
        var header = ""
        var content = ""
        for (index, (innerNumber, _)) in inner.enumerated() { self.inner[innerNumber] = (number, index) }
        for (innerNumber, text) in inner {
            header += "\(innerNumber) \(content.utf8.count) "
            content += text + "\n"
        }
        var data = Data((header + content).utf8)
        var parameters = ""
        if let columns {
            data = Self.predictedUp(data, columns: columns)
            parameters = " /DecodeParms << /Predictor 12 /Columns \(columns) >>"
        }
        let compressed = Deflate.compress(data) ?? Data()
        add(
            number,
            stream: "/Type /ObjStm /N \(inner.count) /First \(header.utf8.count) /Filter \(filter ?? "/FlateDecode")"
                + parameters, compressed)
    }

    var bytes: Data { bytes(crossReferenceStream: false) }

    /// The file, its objects' places in a table, or in a cross-reference
    /// stream (which also tells of the objects inside object streams).
    func bytes(crossReferenceStream: Bool) -> Data {
        var file = Data("%PDF-1.7\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int: Int] = [:]
        for (number, body) in objects {
            offsets[number] = file.count
            file += Data("\(number) 0 obj\n".utf8) + body + Data("\nendobj\n".utf8)
        }
        if crossReferenceStream {
            let number = max(offsets.keys.max() ?? 0, inner.keys.max() ?? 0) + 1
            var rows = Data()
            for object in 0...number {
                let at = object == number ? file.count : offsets[object]
                let (kind, first, second) =
                    inner[object].map { (2, $0.stream, $0.index) } ?? at.map { (1, $0, 0) } ?? (0, 0, 0)
                rows.append(UInt8(kind))
                for shift in [24, 16, 8, 0] { rows.append(UInt8(truncatingIfNeeded: first >> shift)) }
                rows.append(contentsOf: [UInt8(truncatingIfNeeded: second >> 8), UInt8(truncatingIfNeeded: second)])
            }
            let data = Deflate.compress(rows) ?? Data()
            let table = file.count
            file += Data(
                "\(number) 0 obj\n<< /Type /XRef /Size \(number + 1) /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length \(data.count) >>\nstream\n"
                    .utf8)
            file += data + Data("\nendstream\nendobj\nstartxref\n\(table)\n%%EOF\n".utf8)
            return file
        }
        let size = (offsets.keys.max() ?? 0) + 1
        let table = file.count
        file += Data("xref\n0 \(size)\n0000000000 65535 f \n".utf8)
        for number in 1..<size {
            let line =
                offsets[number].map { String(repeating: "0", count: 10 - String($0).count) + "\($0) 00000 n \n" }
                ?? "0000000000 00000 f \n"
            file += Data(line.utf8)
        }
        file += Data("trailer\n<< /Size \(size) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n".utf8)
        return file
    }

    /// Rows of `columns` bytes, each the difference from the row above,
    /// after a filter-type byte 2 (PNG's "up").
    static func predictedUp(_ data: Data, columns: Int) -> Data {
        var output = Data()
        var previous = [UInt8](repeating: 0, count: columns)
        let bytes = [UInt8](data)
        for start in stride(from: 0, to: bytes.count, by: columns) {
            var row = Array(bytes[start..<min(start + columns, bytes.count)])
            row += [UInt8](repeating: 0, count: columns - row.count)
            output.append(2)
            for index in 0..<columns { output.append(row[index] &- previous[index]) }
            previous = row
        }
        return output
    }

    /// A one-page document; `catalog` is added to its catalog dictionary.
    static func document(catalog: String = "", content: String = "BT /F1 12 Tf 20 100 Td (hello) Tj ET") -> PDFWriter {
        var writer = PDFWriter()
        writer.add(1, "<< /Type /Catalog /Pages 2 0 R \(catalog) >>")
        writer.add(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        writer.add(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 5 0 R >>")
        writer.add(5, stream: "", Data(content.utf8))
        return writer
    }
}

@Suite struct PDFActionsTests {
    func saved(_ writer: PDFWriter) -> String { InertMedia.sniffed(writer.bytes, declared: "pdf") }

    /// A document that opens with object 6, defined as each of `values` in turn.
    func opening(_ values: String...) -> PDFWriter {
        var writer = PDFWriter.document(catalog: "/OpenAction 6 0 R")
        for value in values { writer.add(6, value) }
        return writer
    }

    @Test func aDocumentThatOnlyShowsPagesStaysAPDF() {
        #expect(saved(PDFWriter.document()) == "pdf")
        // Opening at a page: a destination, written out or named, or a go-to action.
        #expect(saved(PDFWriter.document(catalog: "/OpenAction [3 0 R /Fit]")) == "pdf")
        #expect(saved(opening("[3 0 R /FitH 200]")) == "pdf")
        #expect(saved(PDFWriter.document(catalog: "/OpenAction << /S /GoTo /D [3 0 R /Fit] >>")) == "pdf")
        // A destination written as a dictionary, as named destinations are.
        #expect(saved(opening("<< /D [3 0 R /XYZ 0 200 null] >>")) == "pdf")
        // A link a reader clicks is a link, as in a post.
        var linked = PDFWriter.document()
        linked.add(7, "<< /Type /Annot /Subtype /Link /Rect [0 0 50 50] /A << /S /URI /URI (http://example.org/) >> >>")
        #expect(saved(linked) == "pdf")
        // Names inside a page's drawing are not the document's: a font called JS.
        #expect(saved(PDFWriter.document(content: "BT /JS 12 Tf (x) Tj /AA gs ET")) == "pdf")
    }

    @Test(arguments: [
        "/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>",
        "/Names << /JavaScript << /Names [(a) << /S /JavaScript /JS (app.alert\\(1\\)) >>] >> >>",
        "/OpenAction << /S /URI /URI (http://evil.example/) >>",
        "/OpenAction << /S /GoTo /D [3 0 R /Fit] /Next << /S /URI /URI (http://evil.example/) >> >>",
        "/OpenAction << /S /Launch /F (calc.exe) >>",
        "/AcroForm << /Fields [] /XFA 9 0 R >>",
        "/AA << /WC << /S /SubmitForm /F (http://evil.example/) >> >>",
        // Names with `#` escapes, as a reader reads them.
        "/OpenAction << /S /J#61vaScript /J#53 (app.alert\\(1\\)) >>",
        "/Open#41ction << /S /URI /URI (http://evil.example/) >>",
        // Something that is no page.
        "/OpenAction (x)",
    ])
    func aDocumentThatActsIsKeptAsBin(_ catalog: String) {
        #expect(saved(PDFWriter.document(catalog: catalog)) == "bin", "\(catalog)")
    }

    @Test func anOpeningActionNamedElsewhereIsJudgedByWhatItNames() {
        #expect(saved(opening("<< /S /JavaScript /JS 8 0 R >>")) == "bin")
        #expect(saved(opening("<< /S /URI /URI (http://evil.example/) >>")) == "bin")
        // Named but never defined: nothing says it only shows a page.
        #expect(saved(opening()) == "bin")
        // Defined twice (an update appended): the table names the second.
        #expect(saved(opening("[3 0 R /Fit]", "<< /S /URI /URI (http://evil.example/) >>")) == "bin")
    }

    /// Where an object is defined twice (a linearized file, an update), the
    /// cross-reference table or stream says which one a reader reads.
    @Test func theCrossReferencesTellWhichDefinitionOpens() {
        // The table points to the object written out; the stream, here,
        // into the object stream.
        var tableSaysAPage = PDFWriter.document(catalog: "/OpenAction 6 0 R")
        tableSaysAPage.add(9, objectStream: [(6, "<< /S /URI /URI (http://evil.example/) >>")])
        tableSaysAPage.add(6, "[3 0 R /Fit]")
        #expect(saved(tableSaysAPage) == "pdf")
        #expect(InertMedia.sniffed(tableSaysAPage.bytes(crossReferenceStream: true), declared: "pdf") == "bin")
        var streamSaysAPage = PDFWriter.document(catalog: "/OpenAction 6 0 R")
        streamSaysAPage.add(6, "<< /S /URI /URI (http://evil.example/) >>")
        streamSaysAPage.add(9, objectStream: [(6, "[3 0 R /Fit]")])
        #expect(saved(streamSaysAPage) == "bin")
        #expect(InertMedia.sniffed(streamSaysAPage.bytes(crossReferenceStream: true), declared: "pdf") == "pdf")
        // Without readable cross-references, every definition must show a page.
        var unreadable = tableSaysAPage.bytes
        unreadable.append(contentsOf: Array("startxref\n999999999\n%%EOF\n".utf8))
        #expect(InertMedia.sniffed(unreadable, declared: "pdf") == "bin")
    }

    /// Only the catalog the trailer names opens the document: another one
    /// (an older revision's, one copied in) is never read, unless the
    /// cross-references cannot be read.
    @Test func onlyTheTrailersCatalogOpens() {
        var unused = PDFWriter.document()
        unused.add(7, "<< /Type /Catalog /Pages 2 0 R /OpenAction 6 0 R >>")
        unused.add(6, "<< /S /URI /URI (http://evil.example/) >>")
        #expect(saved(unused) == "pdf")
        #expect(InertMedia.sniffed(unused.bytes(crossReferenceStream: true), declared: "pdf") == "pdf")
        var unreadable = unused.bytes
        unreadable.append(contentsOf: Array("startxref\n999999999\n%%EOF\n".utf8))
        #expect(InertMedia.sniffed(unreadable, declared: "pdf") == "bin")
        // The same action named by the trailer's catalog acts.
        #expect(saved(opening("<< /S /URI /URI (http://evil.example/) >>")) == "bin")
    }

    @Test func objectStreamsAreReadToo() {
        // The catalog inside a deflated object stream, as most writers
        // make them now; its opening action a script, or a page.
        for (action, expected) in [
            ("/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>", "bin"), ("/OpenAction [3 0 R /Fit]", "pdf"),
            ("/OpenAction 6 0 R", "bin"),
        ] {
            var writer = PDFWriter()
            writer.add(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            writer.add(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>")
            writer.add(9, objectStream: [(1, "<< /Type /Catalog /Pages 2 0 R \(action) >>")])
            #expect(saved(writer) == expected, "\(action)")
        }
        // An opening action named in the file and defined in an object stream.
        var named = PDFWriter.document(catalog: "/OpenAction 6 0 R")
        named.add(9, objectStream: [(6, "<< /S /URI /URI (http://evil.example/) >>")])
        #expect(saved(named) == "bin")
        var page = PDFWriter.document(catalog: "/OpenAction 6 0 R")
        page.add(9, objectStream: [(6, "[3 0 R /Fit]")])
        #expect(saved(page) == "pdf")
        // Through a PNG predictor, which leaves no name readable undone.
        var predicted = PDFWriter.document()
        predicted.add(9, objectStream: [(6, "<< /S /JavaScript /JS (app.alert\\(1\\)) >>")], columns: 7)
        #expect(saved(predicted) == "bin")
        var plainPredicted = PDFWriter.document()
        plainPredicted.add(9, objectStream: [(6, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")], columns: 7)
        #expect(saved(plainPredicted) == "pdf")
    }

    @Test func whatCannotBeReadForSureActs() {
        // An object stream in a filter this reader does not undo.
        var lzw = PDFWriter.document()
        lzw.add(9, objectStream: [(6, "<< /Type /Font >>")], filter: "/LZWDecode")
        #expect(saved(lzw) == "bin")
        // Or larger, decoded, than the budget: 64 MB of blanks in 64 kB.
        var bomb = PDFWriter.document()
        let blanks = Data(repeating: 0x20, count: PDFActions.decodeBudget + 1)
        bomb.add(9, stream: "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", Deflate.compress(blanks) ?? Data())
        #expect(saved(bomb) == "bin")
    }

    @Test func anObjectInsideAnotherStreamIsReadOnItsOwn() {
        // A cross-reference table may point into another stream's data.
        let hidden = "q Q\n8 0 obj\n<< /S /JavaScript /JS (app.alert\\(1\\)) >>\nendobj\n"
        #expect(saved(PDFWriter.document(content: hidden)) == "bin")
    }

    @Test func damagedFilesNeverTrap() {
        let whole = PDFWriter.document(catalog: "/OpenAction [3 0 R /Fit]").bytes
        var generator = SystemRandomNumberGenerator()
        for length in stride(from: 5, to: whole.count, by: 7) { _ = PDFActions.isActive(whole.prefix(length)) }
        for _ in 0..<200 {
            var bytes = whole
            for _ in 0..<8 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255) }
            _ = PDFActions.isActive(bytes)
        }
        let deep = "%PDF-1.7\n1 0 obj " + String(repeating: "<< /A [", count: 10_000) + " endobj"
        #expect(PDFActions.isActive(Data(deep.utf8)) == false)
    }
}
