#ifndef CARDSYNC_CLIBXML2_SHIM_H
#define CARDSYNC_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Foundation on Linux ships its own ICU (_FoundationICU); libxml2's optional ICU headers would
   clash with it in any Swift module that sees both. cardsync never uses libxml2's ICU encoders. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/xmlsave.h>
#include <libxml/uri.h>
#include <libxml/globals.h>

/* xmlFree is a global function pointer, which Swift 6 sees as shared mutable state. */
static inline void cardsync_xml_free(void *pointer) { xmlFree(pointer); }
#endif
