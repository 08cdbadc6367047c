#include "c/clang_ast.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <utility>

namespace druba::c {

std::string Text(CXString s) {
  const char* chars = clang_getCString(s);
  std::string out = chars != nullptr ? chars : "";
  clang_disposeString(s);
  return out;
}

// What OperatorOf reads of a unit's main file: its tokens by offset, and the offsets of the `,`
// between a macro use's arguments.
struct FileText {
  CXFile file = nullptr;
  std::vector<std::pair<unsigned, std::string>> tokens;
  std::set<unsigned> separators;
  bool expanded_read = false;                              // ReadExpanded ran
  std::vector<std::pair<CXCursor, std::string>> expanded;  // operators read off clang's print
};
std::map<CXTranslationUnit, FileText>& Texts();

namespace {

// GNU C, with functions used undeclared (the SV-COMP tasks do). The data model is the host's:
// integers are unbounded in the translation (docs/c.md), so their widths do not matter yet.
CXErrorCode Parse(CXIndex index, const std::string& file, CXUnsavedFile* unsaved,
                  CXTranslationUnit* unit) {
  const char* const args[] = {"-std=gnu11", "-Wno-implicit-function-declaration",
                              "-Wno-everything"};
  return clang_parseTranslationUnit2(index, file.c_str(), args, static_cast<int>(std::size(args)),
                                     unsaved, unsaved != nullptr ? 1 : 0,
                                     CXTranslationUnit_DetailedPreprocessingRecord, unit);
}

}  // namespace

TranslationUnit::TranslationUnit(const std::string& file) {
  index_ = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  const CXErrorCode code = Parse(index_, file, nullptr, &unit_);
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
  Texts().erase(unit_);
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

bool OneOf(const std::string& s, std::initializer_list<const char*> set) {
  for (const char* x : set) {
    if (s == x) return true;
  }
  return false;
}

}  // namespace

// The main file's tokens and its macro uses' separators, by translation unit (FileText).
std::map<CXTranslationUnit, FileText>& Texts() {
  static std::map<CXTranslationUnit, FileText> texts;
  return texts;
}

namespace {

// Where a location is in the file as written: a macro argument's text where it stands, the text
// a macro's body writes at the macro's use (clang's "file location").
std::pair<CXFile, unsigned> FileOffset(CXSourceLocation at) {
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getSpellingLocation(at, &file, nullptr, nullptr, &offset);
  return {file, offset};
}

// The main file's tokens, and the `,` that separate the arguments of its macro uses (the
// preprocessing record lists the uses among the unit's top cursors); read once per unit.
const FileText& TextOf(CXCursor c) {
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(c);
  auto [it, fresh] = Texts().try_emplace(unit);
  FileText& text = it->second;
  if (!fresh) return text;
  const CXCursor root = clang_getTranslationUnitCursor(unit);
  const CXSourceRange whole = clang_getCursorExtent(root);
  text.file = FileOffset(clang_getRangeStart(whole)).first;
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, whole, &tokens, &n);
  for (unsigned i = 0; i < n; ++i) {
    text.tokens.emplace_back(FileOffset(clang_getTokenLocation(unit, tokens[i])).second,
                             Text(clang_getTokenSpelling(unit, tokens[i])));
  }
  clang_disposeTokens(unit, tokens, n);
  for (const CXCursor use : Children(root)) {
    if (KindOf(use) != CXCursor_MacroExpansion || !InMainFile(use)) continue;
    const CXSourceRange r = clang_getCursorExtent(use);
    const unsigned end = FileOffset(clang_getRangeEnd(r)).second;
    int depth = 0;
    for (auto t = std::lower_bound(
             text.tokens.begin(), text.tokens.end(),
             std::make_pair(FileOffset(clang_getRangeStart(r)).second, std::string()));
         t != text.tokens.end() && t->first < end; ++t) {
      depth += t->second == "(" ? 1 : t->second == ")" ? -1 : 0;
      if (t->second == "," && depth == 1) text.separators.insert(t->first);
    }
  }
  return text;
}

// The main file's tokens that lie in [from, to), with their offsets; none when from and to are
// not both in it (code of a header), or out of order (text a macro wrote: both at its use).
std::vector<std::pair<unsigned, std::string>> TokensBetween(CXCursor c, CXSourceLocation from,
                                                            CXSourceLocation to) {
  const FileText& text = TextOf(c);
  const auto [file_a, a] = FileOffset(from);
  const auto [file_b, b] = FileOffset(to);
  if (file_a != text.file || file_b != text.file || a >= b) return {};
  const auto first =
      std::lower_bound(text.tokens.begin(), text.tokens.end(), std::make_pair(a, std::string()));
  const auto last = std::lower_bound(first, text.tokens.end(), std::make_pair(b, std::string()));
  return {first, last};
}

}  // namespace

namespace {

// Clang 14's C library does not name operators: they are read off the file's tokens, between
// the operands for a binary one, and first or last for a unary one, where clang places the
// operands in the file as written. An operator a macro's body wrote is not in the file: then the
// operands are at the macro's use, out of order, and nothing is found; or they are two of its
// arguments, with the `,` between them (`SUB(x, y)`). Both are refused. A macro's argument is
// the file's text (`assert(x >= 1)`), and read.
std::string ReadOperator(CXCursor c) {
  const std::vector<CXCursor> kids = Children(c);
  if (kids.size() == 2) {
    const auto between = TokensBetween(c, clang_getRangeEnd(clang_getCursorExtent(kids[0])),
                                       clang_getRangeStart(clang_getCursorExtent(kids[1])));
    for (const auto& [at, t] : between) {
      if (OneOf(t, {"+",  "-",  "*",  "/",  "%",  "<",  "<=", ">",   ">=",  "==",
                    "!=", "&&", "||", "=",  "+=", "-=", "*=", "/=",  "%=",  "&",
                    "|",  "^",  "<<", ">>", "&=", "|=", "^=", "<<=", ">>=", ","})) {
        if (TextOf(c).separators.contains(at)) break;
        return t;
      }
    }
  } else if (kids.size() == 1) {
    const CXSourceRange extent = clang_getCursorExtent(c);
    const auto t = TokensBetween(c, clang_getRangeStart(extent), clang_getRangeEnd(extent));
    if (!t.empty() && OneOf(t.front().second, {"-", "+", "!", "~", "&", "*", "++", "--"}))
      return t.front().second;
    if (!t.empty() && OneOf(t.back().second, {"++", "--"})) return "post" + t.back().second;
  }
  return "";
}

// A function's operators, in the order of its syntax tree.
void OperatorsIn(CXCursor c, std::vector<CXCursor>& out) {
  const CXCursorKind k = KindOf(c);
  if (k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator ||
      k == CXCursor_CompoundAssignOperator) {
    out.push_back(c);
  }
  for (const CXCursor kid : Children(c)) OperatorsIn(kid, out);
}

bool SameShape(const std::vector<CXCursor>& a, const std::vector<CXCursor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (KindOf(a[i]) != KindOf(b[i]) || Children(a[i]).size() != Children(b[i]).size())
      return false;
  }
  return true;
}

bool HasErrors(CXTranslationUnit unit) {
  bool errors = false;
  for (unsigned i = 0; i < clang_getNumDiagnostics(unit); ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit, i);
    errors = errors || clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
    clang_disposeDiagnostic(d);
  }
  return errors;
}

constexpr const char* kCopy = "__druba_expanded";

// Every function of the main file as clang prints it, macros expanded, appended to the file under
// a name of its own and parsed again: where a macro wrote an operator of a function, its copy has
// it in the text, at the same place of the same tree (checked: the same operators, in the same
// order, of the same kinds and arities; a function whose copy differs gets nothing).
void ReadExpanded(CXTranslationUnit unit, FileText& text) {
  text.expanded_read = true;
  std::size_t size = 0;
  const char* contents = clang_getFileContents(unit, text.file, &size);
  if (contents == nullptr) return;
  std::string source(contents, size);
  std::map<std::string, std::vector<CXCursor>> originals;  // a copy's name: its original's
  for (const CXCursor fn : Children(clang_getTranslationUnitCursor(unit))) {
    if (KindOf(fn) != CXCursor_FunctionDecl || !InMainFile(fn) || clang_isCursorDefinition(fn) == 0)
      continue;
    const std::string name = Spelling(fn);
    CXPrintingPolicy policy = clang_getCursorPrintingPolicy(fn);
    std::string printed = Text(clang_getCursorPrettyPrinted(fn, policy));
    clang_PrintingPolicy_dispose(policy);
    const std::size_t at = printed.find(name + "(");
    if (at == std::string::npos) continue;
    printed.insert(at + name.size(), kCopy);
    source += "\n" + printed + "\n";
    OperatorsIn(fn, originals[name + kCopy]);
  }
  const std::string file = Text(clang_getFileName(text.file));
  CXUnsavedFile unsaved{file.c_str(), source.data(), static_cast<unsigned long>(source.size())};
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit copy = nullptr;
  if (Parse(index, file, &unsaved, &copy) == CXError_Success && copy != nullptr &&
      !HasErrors(copy)) {
    for (const CXCursor fn : Children(clang_getTranslationUnitCursor(copy))) {
      const auto original = originals.find(Spelling(fn));
      if (original == originals.end() || KindOf(fn) != CXCursor_FunctionDecl) continue;
      std::vector<CXCursor> again;
      OperatorsIn(fn, again);
      if (!SameShape(original->second, again)) continue;
      for (std::size_t i = 0; i < again.size(); ++i) {
        const std::string op = ReadOperator(again[i]);
        if (!op.empty()) text.expanded.emplace_back(original->second[i], op);
      }
    }
    Texts().erase(copy);
  }
  if (copy != nullptr) clang_disposeTranslationUnit(copy);
  clang_disposeIndex(index);
}

}  // namespace

// An operator a macro wrote is read off clang's print of its function (ReadExpanded).
std::string OperatorOf(CXCursor c) {
  if (std::string op = ReadOperator(c); !op.empty()) return op;
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(c);
  FileText& text = Texts()[unit];
  if (!text.expanded_read) ReadExpanded(unit, text);
  for (const auto& [at, op] : text.expanded) {
    if (clang_equalCursors(at, c) != 0) return op;
  }
  Refuse(c, "an operator druba could not read (one a macro wrote?)");
}

ForParts ForHeader(CXCursor s) {
  const CXSourceRange extent = clang_getCursorExtent(s);
  std::vector<unsigned> semicolons;
  int depth = 0;
  for (const auto& [at, t] :
       TokensBetween(s, clang_getRangeStart(extent), clang_getRangeEnd(extent))) {
    depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (t == ";" && depth == 1) semicolons.push_back(at);
    if (semicolons.size() == 2) break;
  }
  std::vector<CXCursor> kids = Children(s);
  if (semicolons.size() != 2 || kids.empty())
    Refuse(s, "a for loop whose header druba could not read");
  ForParts out{std::nullopt, std::nullopt, std::nullopt, kids.back()};
  kids.pop_back();
  for (const CXCursor kid : kids) {
    const unsigned at = FileOffset(clang_getRangeStart(clang_getCursorExtent(kid))).second;
    std::optional<CXCursor>& part = at < semicolons[0]   ? out.init
                                    : at < semicolons[1] ? out.cond
                                                         : out.inc;
    if (part) Refuse(kid, "a for loop whose header druba could not read");
    part = kid;
  }
  return out;
}

IntegerType IntegerOf(CXType type) {
  switch (clang_getCanonicalType(type).kind) {
    case CXType_Char_S:
    case CXType_SChar:
      return {8, false};
    case CXType_Char_U:
    case CXType_UChar:
      return {8, true};
    case CXType_Short:
      return {16, false};
    case CXType_UShort:
      return {16, true};
    case CXType_Int:
    case CXType_Long:  // ILP32
      return {32, false};
    case CXType_UInt:
    case CXType_ULong:
      return {32, true};
    case CXType_LongLong:
      return {64, false};
    case CXType_ULongLong:
      return {64, true};
    default:
      return {};
  }
}

std::string PowerOfTwo(int n) {
  return n == 64 ? "18446744073709551616" : std::to_string(1ULL << n);
}

std::string Wrapped(const std::string& x, int bits) {
  return "(" + x + " % " + PowerOfTwo(bits) + ")";
}

std::string WrappedSum(const std::string& x, char op, int bits) {
  const std::string n = PowerOfTwo(bits);
  return op == '+' ? "(if " + x + " >= " + n + " then " + x + " - " + n + " else " + x + ")"
                   : "(if " + x + " < 0 then " + x + " + " + n + " else " + x + ")";
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
