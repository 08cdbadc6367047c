// Clang's C library, loaded when the first C program is read (dlopen), not when druba starts:
// linked in, it and LLVM's library cost every run of druba 40 MB of memory before any work. Each
// clang_* function the C kind calls is a pointer here; the names below call them through it.
#pragma once

#include <clang-c/Index.h>

namespace druba::c {

// NOLINTBEGIN(cppcoreguidelines-macro-usage)
#define DRUBA_LIBCLANG_FUNCTIONS(X)  \
  X(clang_Cursor_Evaluate)           \
  X(clang_Cursor_getArgument)        \
  X(clang_Cursor_getNumArguments)    \
  X(clang_Cursor_getStorageClass)    \
  X(clang_Cursor_getTranslationUnit) \
  X(clang_EvalResult_dispose)        \
  X(clang_EvalResult_getAsLongLong)  \
  X(clang_EvalResult_getKind)        \
  X(clang_Location_isFromMainFile)   \
  X(clang_PrintingPolicy_dispose)    \
  X(clang_createIndex)               \
  X(clang_disposeDiagnostic)         \
  X(clang_disposeIndex)              \
  X(clang_disposeString)             \
  X(clang_disposeTokens)             \
  X(clang_disposeTranslationUnit)    \
  X(clang_equalCursors)              \
  X(clang_getArrayElementType)       \
  X(clang_getArraySize)              \
  X(clang_getCString)                \
  X(clang_getCanonicalType)          \
  X(clang_getCursorExtent)           \
  X(clang_getCursorKind)             \
  X(clang_getCursorKindSpelling)     \
  X(clang_getCursorLocation)         \
  X(clang_getCursorPrettyPrinted)    \
  X(clang_getCursorPrintingPolicy)   \
  X(clang_getCursorReferenced)       \
  X(clang_getCursorSpelling)         \
  X(clang_getCursorTLSKind)          \
  X(clang_getCursorType)             \
  X(clang_getCursorUSR)              \
  X(clang_getDiagnostic)             \
  X(clang_getDiagnosticLocation)     \
  X(clang_getDiagnosticSeverity)     \
  X(clang_getDiagnosticSpelling)     \
  X(clang_getEnumConstantDeclValue)  \
  X(clang_getExpansionLocation)      \
  X(clang_getFileContents)           \
  X(clang_getFileName)               \
  X(clang_getNumDiagnostics)         \
  X(clang_getRange)                  \
  X(clang_getRangeEnd)               \
  X(clang_getRangeStart)             \
  X(clang_getSpellingLocation)       \
  X(clang_getTokenLocation)          \
  X(clang_getTokenSpelling)          \
  X(clang_getTranslationUnitCursor)  \
  X(clang_getTypeSpelling)           \
  X(clang_isCursorDefinition)        \
  X(clang_isExpression)              \
  X(clang_parseTranslationUnit2)     \
  X(clang_tokenize)                  \
  X(clang_visitChildren)

struct LibClang {
#define DRUBA_LIBCLANG_MEMBER(name) decltype(&::name) name##_ = nullptr;
  DRUBA_LIBCLANG_FUNCTIONS(DRUBA_LIBCLANG_MEMBER)
#undef DRUBA_LIBCLANG_MEMBER
};

// The library, loaded on the first call; throws InputError when it cannot be (no libclang).
const LibClang& Clang();

}  // namespace druba::c

// Calls through the pointers (libclang.cc names each by # and ##, which these do not reach).
#define clang_Cursor_Evaluate ::druba::c::Clang().clang_Cursor_Evaluate_
#define clang_Cursor_getArgument ::druba::c::Clang().clang_Cursor_getArgument_
#define clang_Cursor_getNumArguments ::druba::c::Clang().clang_Cursor_getNumArguments_
#define clang_Cursor_getStorageClass ::druba::c::Clang().clang_Cursor_getStorageClass_
#define clang_Cursor_getTranslationUnit ::druba::c::Clang().clang_Cursor_getTranslationUnit_
#define clang_EvalResult_dispose ::druba::c::Clang().clang_EvalResult_dispose_
#define clang_EvalResult_getAsLongLong ::druba::c::Clang().clang_EvalResult_getAsLongLong_
#define clang_EvalResult_getKind ::druba::c::Clang().clang_EvalResult_getKind_
#define clang_Location_isFromMainFile ::druba::c::Clang().clang_Location_isFromMainFile_
#define clang_PrintingPolicy_dispose ::druba::c::Clang().clang_PrintingPolicy_dispose_
#define clang_createIndex ::druba::c::Clang().clang_createIndex_
#define clang_disposeDiagnostic ::druba::c::Clang().clang_disposeDiagnostic_
#define clang_disposeIndex ::druba::c::Clang().clang_disposeIndex_
#define clang_disposeString ::druba::c::Clang().clang_disposeString_
#define clang_disposeTokens ::druba::c::Clang().clang_disposeTokens_
#define clang_disposeTranslationUnit ::druba::c::Clang().clang_disposeTranslationUnit_
#define clang_equalCursors ::druba::c::Clang().clang_equalCursors_
#define clang_getArrayElementType ::druba::c::Clang().clang_getArrayElementType_
#define clang_getArraySize ::druba::c::Clang().clang_getArraySize_
#define clang_getCString ::druba::c::Clang().clang_getCString_
#define clang_getCanonicalType ::druba::c::Clang().clang_getCanonicalType_
#define clang_getCursorExtent ::druba::c::Clang().clang_getCursorExtent_
#define clang_getCursorKind ::druba::c::Clang().clang_getCursorKind_
#define clang_getCursorKindSpelling ::druba::c::Clang().clang_getCursorKindSpelling_
#define clang_getCursorLocation ::druba::c::Clang().clang_getCursorLocation_
#define clang_getCursorPrettyPrinted ::druba::c::Clang().clang_getCursorPrettyPrinted_
#define clang_getCursorPrintingPolicy ::druba::c::Clang().clang_getCursorPrintingPolicy_
#define clang_getCursorReferenced ::druba::c::Clang().clang_getCursorReferenced_
#define clang_getCursorSpelling ::druba::c::Clang().clang_getCursorSpelling_
#define clang_getCursorTLSKind ::druba::c::Clang().clang_getCursorTLSKind_
#define clang_getCursorType ::druba::c::Clang().clang_getCursorType_
#define clang_getCursorUSR ::druba::c::Clang().clang_getCursorUSR_
#define clang_getDiagnostic ::druba::c::Clang().clang_getDiagnostic_
#define clang_getDiagnosticLocation ::druba::c::Clang().clang_getDiagnosticLocation_
#define clang_getDiagnosticSeverity ::druba::c::Clang().clang_getDiagnosticSeverity_
#define clang_getDiagnosticSpelling ::druba::c::Clang().clang_getDiagnosticSpelling_
#define clang_getEnumConstantDeclValue ::druba::c::Clang().clang_getEnumConstantDeclValue_
#define clang_getExpansionLocation ::druba::c::Clang().clang_getExpansionLocation_
#define clang_getFileContents ::druba::c::Clang().clang_getFileContents_
#define clang_getFileName ::druba::c::Clang().clang_getFileName_
#define clang_getNumDiagnostics ::druba::c::Clang().clang_getNumDiagnostics_
#define clang_getRange ::druba::c::Clang().clang_getRange_
#define clang_getRangeEnd ::druba::c::Clang().clang_getRangeEnd_
#define clang_getRangeStart ::druba::c::Clang().clang_getRangeStart_
#define clang_getSpellingLocation ::druba::c::Clang().clang_getSpellingLocation_
#define clang_getTokenLocation ::druba::c::Clang().clang_getTokenLocation_
#define clang_getTokenSpelling ::druba::c::Clang().clang_getTokenSpelling_
#define clang_getTranslationUnitCursor ::druba::c::Clang().clang_getTranslationUnitCursor_
#define clang_getTypeSpelling ::druba::c::Clang().clang_getTypeSpelling_
#define clang_isCursorDefinition ::druba::c::Clang().clang_isCursorDefinition_
#define clang_isExpression ::druba::c::Clang().clang_isExpression_
#define clang_parseTranslationUnit2 ::druba::c::Clang().clang_parseTranslationUnit2_
#define clang_tokenize ::druba::c::Clang().clang_tokenize_
#define clang_visitChildren ::druba::c::Clang().clang_visitChildren_
// NOLINTEND(cppcoreguidelines-macro-usage)
