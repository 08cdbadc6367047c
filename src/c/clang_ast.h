// Clang's C library (clang-c/Index.h) as the C kind reads it: a translation unit parsed with the
// real preprocessor and system headers, its errors as InputError at file:line:col, and the few
// questions the lowering asks of a cursor (its children, operator, name, value, place).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "c/libclang.h"
#include "common/diagnostics.h"

namespace druba::c {

// One parsed C file; clang's first error is thrown as an InputError at its place.
class TranslationUnit {
 public:
  explicit TranslationUnit(const std::string& file);
  ~TranslationUnit();
  TranslationUnit(const TranslationUnit&) = delete;
  TranslationUnit& operator=(const TranslationUnit&) = delete;
  CXCursor Root() const { return clang_getTranslationUnitCursor(unit_); }

 private:
  CXIndex index_ = nullptr;
  CXTranslationUnit unit_ = nullptr;
};

std::string Text(CXString s);  // takes and frees s
std::vector<CXCursor> Children(CXCursor c);
std::string Spelling(CXCursor c);
inline CXCursorKind KindOf(CXCursor c) {
  return clang_getCursorKind(c);
}
// Where c starts in the file (its macro's use, for code a macro wrote).
SourceLocation Where(CXCursor c);
bool InMainFile(CXCursor c);
// The operator of a unary, binary or compound assignment operator ("+", "<=", "+=", "++"; a
// postfix one as "post++"), read off the pretty-printed source of c and of its operands.
std::string OperatorOf(CXCursor c);
// A for statement's init, condition and increment (each absent when not written), and its body:
// clang lists only the parts present, so they are told apart by where the header's `;` are.
struct ForParts {
  std::optional<CXCursor> init, cond, inc;
  CXCursor body;
};
ForParts ForHeader(CXCursor s);
// An integer type of ILP32, SV-COMP's data model: its width (8, 16, 32 or 64; 0 for a type that
// is not an integer type) and whether it is unsigned (its arithmetic wraps at 2^width).
struct IntegerType {
  int bits = 0;
  bool is_unsigned = false;
};
IntegerType IntegerOf(CXType type);
// 2^n, as decimal text (n up to 64).
std::string PowerOfTwo(int n);
// x modulo 2^bits, as .drb text (`%` of .drb is never negative: C's unsigned wraparound).
std::string Wrapped(const std::string& x, int bits);
// The same for x = a + b (op '+') or a - b (op '-') of a and b in 0 .. 2^bits - 1, which is at
// most one modulus out: a comparison, not a remainder (linear, as the solvers like it).
std::string WrappedSum(const std::string& x, char op, int bits);
// The value of an integer constant expression, when it is one.
std::optional<long long> IntegerValue(CXCursor c);
// c below implicit casts, parentheses and unexposed wrappers.
CXCursor Bare(CXCursor c);
// An error at c: what it is, and that it is outside what druba reads of C (docs/c.md).
[[noreturn]] void Refuse(CXCursor c, const std::string& what);

}  // namespace druba::c
