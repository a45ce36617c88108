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

#endif
