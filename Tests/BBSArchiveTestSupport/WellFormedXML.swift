import CLibXML2
import Foundation

/// Whether libxml2's XML parser reads `data` as a well-formed document:
/// every element closed, every attribute quoted, every `&` escaped. The
/// tests check the pages the site builder writes with it.
package enum WellFormedXML {
    package static func check(_ data: Data) -> Bool {
        guard let context = xmlNewParserCtxt() else { return false }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(
            bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = data.withUnsafeBytes { raw -> xmlDocPtr? in
            guard let base = raw.baseAddress else { return nil }
            return xmlCtxtReadMemory(
                context, base.assumingMemoryBound(to: CChar.self), Int32(raw.count), "page.html", "UTF-8", options)
        }
        guard let document else { return false }
        xmlFreeDoc(document)
        return context.pointee.wellFormed != 0
    }
}
