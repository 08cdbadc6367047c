#include "c/clang_ast.h"

#include <initializer_list>

namespace druba::c {

std::string Text(CXString s) {
  const char* chars = clang_getCString(s);
  std::string out = chars != nullptr ? chars : "";
  clang_disposeString(s);
  return out;
}

TranslationUnit::TranslationUnit(const std::string& file) {
  index_ = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  // GNU C, with functions used undeclared (the SV-COMP tasks do). The data model is the host's:
  // integers are unbounded in the translation (docs/c.md), so their widths do not matter yet.
  const char* const args[] = {"-std=gnu11", "-Wno-implicit-function-declaration",
                              "-Wno-everything"};
  const CXErrorCode code =
      clang_parseTranslationUnit2(index_, file.c_str(), args, static_cast<int>(std::size(args)),
                                  nullptr, 0, CXTranslationUnit_None, &unit_);
  if (code != CXError_Success || unit_ == nullptr) {
    clang_disposeIndex(index_);
    throw InputError({file, 0, 0}, "clang could not read it as C");
  }
  const unsigned n = clang_getNumDiagnostics(unit_);
  for (unsigned i = 0; i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit_, i);
    const CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(d);
    if (severity < CXDiagnostic_Error) {
      clang_disposeDiagnostic(d);
      continue;
    }
    CXFile where_file = nullptr;
    unsigned line = 0;
    unsigned column = 0;
    clang_getSpellingLocation(clang_getDiagnosticLocation(d), &where_file, &line, &column, nullptr);
    std::string name = where_file != nullptr ? Text(clang_getFileName(where_file)) : file;
    const std::string message = Text(clang_getDiagnosticSpelling(d));
    clang_disposeDiagnostic(d);
    clang_disposeTranslationUnit(unit_);
    clang_disposeIndex(index_);
    throw InputError({name, line, column}, "C: " + message);
  }
}

TranslationUnit::~TranslationUnit() {
  clang_disposeTranslationUnit(unit_);
  clang_disposeIndex(index_);
}

std::vector<CXCursor> Children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

std::string Spelling(CXCursor c) {
  return Text(clang_getCursorSpelling(c));
}

SourceLocation Where(CXCursor c) {
  CXFile file = nullptr;
  unsigned line = 0;
  unsigned column = 0;
  clang_getExpansionLocation(clang_getCursorLocation(c), &file, &line, &column, nullptr);
  return {file != nullptr ? Text(clang_getFileName(file)) : "", line, column};
}

bool InMainFile(CXCursor c) {
  return clang_Location_isFromMainFile(clang_getCursorLocation(c)) != 0;
}

namespace {

std::vector<std::string> Tokens(CXCursor c, CXSourceRange range) {
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(c);
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, range, &tokens, &n);
  std::vector<std::string> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(Text(clang_getTokenSpelling(unit, tokens[i])));
  clang_disposeTokens(unit, tokens, n);
  return out;
}

bool OneOf(const std::string& s, std::initializer_list<const char*> set) {
  for (const char* x : set) {
    if (s == x) return true;
  }
  return false;
}

}  // namespace

// Clang 14's C library does not name operators: they are read off the tokens, between the
// operands for a binary one, and first or last for a unary one. Where a macro wrote the code the
// tokens may be elsewhere; what is found is then no operator, and refused.
std::string OperatorOf(CXCursor c) {
  const std::vector<CXCursor> kids = Children(c);
  if (kids.size() == 2) {
    const CXSourceRange between =
        clang_getRange(clang_getRangeEnd(clang_getCursorExtent(kids[0])),
                       clang_getRangeStart(clang_getCursorExtent(kids[1])));
    for (const std::string& t : Tokens(c, between)) {
      if (OneOf(t, {"+",  "-",  "*",  "/",  "%",  "<",  "<=", ">",   ">=",  "==",
                    "!=", "&&", "||", "=",  "+=", "-=", "*=", "/=",  "%=",  "&",
                    "|",  "^",  "<<", ">>", "&=", "|=", "^=", "<<=", ">>=", ","})) {
        return t;
      }
    }
  } else if (kids.size() == 1) {
    const std::vector<std::string> t = Tokens(c, clang_getCursorExtent(c));
    if (!t.empty() && OneOf(t.front(), {"-", "+", "!", "~", "&", "*", "++", "--"}))
      return t.front();
    if (!t.empty() && OneOf(t.back(), {"++", "--"})) return "post" + t.back();
  }
  Refuse(c, "an operator druba could not read (one a macro wrote?)");
}

namespace {

unsigned Offset(CXSourceLocation at) {
  unsigned offset = 0;
  clang_getExpansionLocation(at, nullptr, nullptr, nullptr, &offset);
  return offset;
}

}  // namespace

ForParts ForHeader(CXCursor s) {
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(s);
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(s), &tokens, &n);
  std::vector<unsigned> semicolons;
  int depth = 0;
  for (unsigned i = 0; i < n && semicolons.size() < 2; ++i) {
    const std::string t = Text(clang_getTokenSpelling(unit, tokens[i]));
    depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (t == ";" && depth == 1)
      semicolons.push_back(Offset(clang_getTokenLocation(unit, tokens[i])));
  }
  clang_disposeTokens(unit, tokens, n);
  std::vector<CXCursor> kids = Children(s);
  if (semicolons.size() != 2 || kids.empty())
    Refuse(s, "a for loop whose header druba could not read");
  ForParts out{std::nullopt, std::nullopt, std::nullopt, kids.back()};
  kids.pop_back();
  for (const CXCursor kid : kids) {
    const unsigned at = Offset(clang_getRangeStart(clang_getCursorExtent(kid)));
    std::optional<CXCursor>& part = at < semicolons[0]   ? out.init
                                    : at < semicolons[1] ? out.cond
                                                         : out.inc;
    if (part) Refuse(kid, "a for loop whose header druba could not read");
    part = kid;
  }
  return out;
}

std::optional<long long> IntegerValue(CXCursor c) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (r == nullptr) return std::nullopt;
  std::optional<long long> out;
  if (clang_EvalResult_getKind(r) == CXEval_Int) out = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return out;
}

CXCursor Bare(CXCursor c) {
  for (;;) {
    const CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr) {
      return c;
    }
    const std::vector<CXCursor> kids = Children(c);
    if (kids.empty()) return c;
    c = kids.back();  // a cast's type comes first
  }
}

void Refuse(CXCursor c, const std::string& what) {
  throw InputError(Where(c), what + ": outside the C that druba reads (docs/c.md)");
}

}  // namespace druba::c
