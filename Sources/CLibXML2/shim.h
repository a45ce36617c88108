#ifndef BBSARCHIVE_CLIBXML2_SHIM_H
#define BBSARCHIVE_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, and its headers then pull in ICU's
   unicode/ucnv.h, which clashes with the copy of ICU inside Foundation.
   Nothing here touches xmlCharEncodingHandler (the only struct whose layout
   depends on it), so hide ICU from the importer. */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

/// `xmlFree` is a global function pointer, which Swift 6 refuses to read from
/// concurrent code; call it through this function instead.
static inline void bbs_xml_free(void *pointer) {
    xmlFree(pointer);
}

#include <libxml/xmlerror.h>

static void bbs_xml_ignore_generic(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static void bbs_xml_ignore_structured(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}

/// Keeps libxml2's own messages off stderr: a forum page's broken markup is
/// the parser's business, never the terminal's. libxml2's error handlers
/// are per thread, so call this on the thread that parses, before parsing.
static inline void bbs_xml_silence(void) {
    xmlSetGenericErrorFunc(NULL, bbs_xml_ignore_generic);
    xmlSetStructuredErrorFunc(NULL, bbs_xml_ignore_structured);
}

#endif
