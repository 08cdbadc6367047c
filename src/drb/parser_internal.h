// The .drb parser's parts (internal to src/drb): the tokens, the lexer's entry point, and the
// recursive-descent Parser, whose members are defined by section in parser.cc (tokens,
// declarations, abstractions, after parsing), parser_threads.cc (threads and statements) and
// parser_expressions.cc (expressions). docs/drb.md is the language's reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "common/diagnostics.h"
#include "drb/ast.h"
#include "drb/parser.h"

namespace druba::drb::internal {

struct Token {
  enum class Kind : std::uint8_t { kIdent, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::size_t begin = 0;  // byte offsets into the source
  std::size_t end = 0;
};

// The longest integer literal, in decimal digits (without leading zeros).
inline constexpr std::size_t kMaxLiteralDigits = 1000;
inline constexpr std::uint32_t kMaxArraySize = 4096;  // elements of a fixed-size array

// The tokens of `text` (names `file` in errors), ending with one of kind kEnd.
std::vector<Token> Lex(std::string_view text, const std::string& file);

// An integer literal is decimal whatever its leading zeros; `digits` is a non-empty run of
// decimal digits.
Int DecimalLiteral(std::string_view digits);

bool IsKeyword(std::string_view word);

class Parser {
 public:
  Parser(std::string_view text, const std::string& file)
      : text_(text), file_(file), tokens_(Lex(text, file)) {
    program_.file = file;
  }

  Program Run() {
    while (!AtEnd()) {
      if (Peek("shared") || Peek("local")) {
        ParseDeclaration();
      } else if (Peek("thread")) {
        ParseThread();
      } else if (Peek("abstraction")) {
        ParseAbstraction();
      } else if (Peek("check")) {
        ParseCheck();
      } else if (Peek("unsafe")) {
        ParseUnsafe();
      } else if (Peek("initially")) {
        ParseInitially();
      } else {
        Fail(Cur(),
             "expected 'shared', 'local', 'thread', 'abstraction', 'check', 'initially' or "
             "'unsafe'");
      }
    }
    if (program_.templates.empty()) {  // named at the end of the file, where one was expected
      Fail(Cur(), "the model declares no thread (expected 'thread NAME { ... }')");
    }
    Finish();
    return std::move(program_);
  }

 private:
  // ---- tokens ----
  const Token& Cur() const { return tokens_[pos_]; }
  bool AtEnd() const { return Cur().kind == Token::Kind::kEnd; }
  bool Peek(std::string_view text) const {
    return Cur().kind != Token::Kind::kEnd && Cur().kind != Token::Kind::kNumber &&
           Cur().text == text;
  }
  bool PeekAt(std::size_t ahead, std::string_view text) const {
    const std::size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i].kind != Token::Kind::kEnd && tokens_[i].text == text;
  }
  bool Accept(std::string_view text);
  const Token& Expect(std::string_view text);
  std::string Found() const {
    if (AtEnd()) return " but the file ended";
    return " but found '" + Cur().text + "'";
  }
  SourceLocation Where(const Token& t) const { return {file_, t.line, t.column}; }
  [[noreturn]] void Fail(const Token& t, const std::string& message) const {
    throw InputError(Where(t), message);
  }
  const Token& ExpectIdent(const char* what);
  Int ExpectNumber(const char* what);
  // After a declaration's name (and size): its initializer, if any, into `v` (init, any), or for a
  // fixed-size array `= {...}` the elements' values (returned). `shared`: a shared scalar or
  // array, whose value may be left free.
  std::vector<Int> ParseInitializer(const Token& name, bool shared, std::uint32_t size,
                                    Variable& v);
  // A declaration's initial value of a variable of `type`.
  Int InitialValue(const Variable& var);
  std::uint32_t ExpectSmall(const char* what, std::uint32_t min, std::uint32_t max);

  // ---- declarations ----
  void ParseDeclaration();
  // `check deadlock;`: the property the model is checked for besides its assertions.
  void ParseCheck() {
    Expect("check");
    if (!Accept("deadlock")) Fail(Cur(), "expected 'deadlock' after 'check'" + Found());
    program_.check_deadlock = true;
    Expect(";");
  }

  // `unsafe EXPR;`: a global bad-state property, about every thread alike (no `self`).
  void ParseUnsafe();
  // `initially EXPR;`: a constraint on the initial values of shared variables.
  void ParseInitially();
  // Declares the shared Boolean `__started` (once): false until the run's first step, which
  // chooses the initial values of the variables declared `= *`.
  void DeclareStarted(const Token& at);
  // Checks every `unsafe` property in every step (see Program::unsafe).
  void CheckUnsafeEveryStep();

  struct VarRef {
    bool local;
    std::uint32_t index;
  };
  std::optional<VarRef> FindVar(const std::string& name) const;
  // A fixed-size array `shared T a[N]` / `local T a[N]`: N variables a[0]..a[N-1] from `first`.
  struct ArrayRef {
    bool local;
    std::uint32_t first;
    std::uint32_t size;
  };
  std::optional<ArrayRef> FindArray(const std::string& name) const {
    const auto it = arrays_.find(name);
    if (it == arrays_.end()) return std::nullopt;
    return it->second;
  }
  void ParsePairArray(const Token& name, Variable v);
  // A per-pair array `shared T a[threads][threads]`: its index in Program::pairs.
  std::optional<std::uint32_t> FindPairArray(const std::string& name) const {
    const auto it = pair_arrays_.find(name);
    if (it == pair_arrays_.end()) return std::nullopt;
    return it->second;
  }
  // `[row][column]` after the name of a per-pair array: its entry, both indices thread indices
  // evaluated at run time.
  ExprPtr PairEntry(const Token& name, std::uint32_t pair);
  // `[index]` after the name of a fixed-size array: the element itself for a literal index (an
  // error outside the array), else its element chosen at run time (index as args[0]).
  ExprPtr ArrayElement(const Token& name, const ArrayRef& array);
  // What an assignment writes: a variable, an element of an array (chosen at run time or not),
  // or another thread's entry of a per-thread array; an error if `op` writes it already.
  Instr::Target ParseTarget(const Token& name, const Instr& op);

  // ---- threads ----
  struct PendingGoto {
    std::string name;
    SourceLocation where;
  };

  void ParseThread();

  void ResolveGotos(Instr& op);

  // Parses one statement (a `while c do { ... }` with its body, or an if whose blocks hold
  // statements: several); returns whether it was such a compound one, which routes its own way
  // out.
  bool ParseStatement(std::uint32_t template_index);
  // The body of `while c do { ... }` whose test is statement `test`: its statements, the last one
  // (unless a loop) going back to the test; then the test's way out.
  void ParseLoopBody(std::uint32_t template_index, std::uint32_t test);
  // `{ S1 S2 ... }`, statements whose block ends at `exit` (its last statement's next, unless it
  // routes its own way out).
  void ParseStatementBlock(std::uint32_t template_index, std::uint32_t exit);
  // Where control goes after a compound statement just parsed: the next statement of its block,
  // or where the block ends.
  std::uint32_t WayOut() const;
  // At `if`: whether its blocks hold statements (one starts with a label or `while`), so that it
  // is a structured if: the test is a step, and each statement of the chosen block is one.
  bool StructuredIfAhead() const;
  // At `while`: whether a body in braces follows `do`.
  bool PeekLoopWithBody() const;
  // The test of a loop or a structured if (`while c do`, `if c then`, `word` the second
  // keyword): into the block when c holds, else to a goto the caller patches. Returns its index.
  std::uint32_t PushTest(Statement s, const char* word, std::size_t text_begin);
  void ParseStructuredIf(std::uint32_t template_index, Statement s, std::size_t text_begin);
  // `await c` (assume c), `lock(x)` (atomic { assume !x; x := true }), `unlock(x)` (x := false),
  // when `t` starts one; false otherwise.
  bool ParseSugar(const Token& t, Instr& op);

  static std::string CollapseSpace(std::string_view in);

  std::vector<Instr> ParseBlock();

  std::vector<Instr> ParseBranch();

  Instr ParseInstr();

  void ParseAssignments(Instr& op);
  void ParseAssignEach(Instr& op);  // `forall j: a[j] := e, ...`

  static ExprPtr CloneShared(std::uint32_t var, const SourceLocation& where);

  // ---- abstractions ----
  void ParseAbstraction();

  // ---- expressions ----
  static ExprPtr MakeBool(bool v, const SourceLocation& where);
  static ExprPtr MakeNumber(const Int& v, const SourceLocation& where);

  ExprPtr ParseBoolExpr();
  ExprPtr ParseIntExpr();

  // Input decides how deep the parser recurses (parentheses, runs of '!' or '-', nested
  // statements) and how tall an expression grows (a sum of many terms); both are bounded, with an
  // error at the place, so that no input can overflow the stack here or in the evaluator and
  // encoder.
  static constexpr std::uint32_t kMaxNesting = 256;
  static constexpr std::uint32_t kMaxHeight = 1000;
  class Nest {
   public:
    explicit Nest(Parser& parser) : parser_(parser) {
      if (++parser_.nesting_ > kMaxNesting) {
        parser_.Fail(parser_.Cur(),
                     "nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
      }
    }
    ~Nest() { --parser_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& parser_;
  };
  void Measure(Expr& e, const Token& at) const;

  ExprPtr Binary(Expr::Op op, ExprPtr a, ExprPtr b, const Token& at);

  ExprPtr ParseExpr();  // a => b (right associative), lowest
  ExprPtr ParseOr();
  ExprPtr ParseAnd();
  ExprPtr ParseNot();
  ExprPtr ParseComparison();
  ExprPtr ParseLabel();
  ExprPtr ParseAdditive();
  ExprPtr ParseMultiplicative();
  ExprPtr ParseUnary();

  ExprPtr ParseQuantifier();
  ExprPtr ParseConditional();  // `if C then A else B` as a value
  void ParseBinder(Expr& e);

  ExprPtr ThreadIndex();  // after '['

  ExprPtr ParsePrimary();

  // ---- after parsing ----
  void Finish();
  void SplitLabel(Expr& comparison, const std::vector<std::uint32_t>& places);

  static constexpr std::uint32_t kPendingBase = 0x80000000U;
  static constexpr std::uint32_t kEndMarker = 0x7FFFFFFFU;
  static constexpr std::uint32_t kAfterBase = 0x60000000U;  // ParseStructuredIf's placeholders

  std::string_view text_;
  std::string file_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::uint32_t nesting_ = 0;  // Nest
  Program program_;
  absl::flat_hash_map<std::string, std::uint32_t> labels_;
  std::vector<absl::flat_hash_map<std::string, std::uint32_t>> template_labels_;
  std::vector<PendingGoto> pending_gotos_;
  std::vector<std::pair<Expr*, std::string>> pending_labels_;
  // The comparison `pc... == L` (or !=) each label of pending_labels_ stands in: a label several
  // templates have means "at L in its own template", the comparison with each.
  absl::flat_hash_map<const Expr*, Expr*> label_comparison_;
  // Statements whose `next` is not the following one (the last of a loop body goes back to the
  // loop's test), and where control goes when the current block of statements ends (a loop body:
  // its test; the thread: end).
  absl::flat_hash_map<std::uint32_t, std::uint32_t> fixed_next_;
  std::vector<std::uint32_t> block_exits_;
  std::size_t ifs_ = 0;  // structured ifs so far
  std::vector<std::pair<std::string, std::uint32_t>> bound_;
  absl::flat_hash_map<std::string, ArrayRef> arrays_;
  std::vector<std::uint32_t> per_thread_arrays_;  // the locals declared `shared T a[threads]`
  absl::flat_hash_map<std::string, std::uint32_t> pair_arrays_;  // into Program::pairs
  // Where a use of `self` or a fixed thread index is recorded: the code's flag, or the
  // abstraction's being parsed.
  // What tells threads apart by their numbers, and where it first does (the code's, or while an
  // abstraction block is read, the block's).
  struct Asymmetry {
    bool yes = false;
    SourceLocation where;
    std::string what;
  };
  Asymmetry code_asymmetric_;
  Asymmetry* asymmetric_ = &code_asymmetric_;
  void MarkAsymmetric(const SourceLocation& where, const char* what) {
    if (asymmetric_->yes) return;
    *asymmetric_ = {true, where, what};
  }
};

}  // namespace druba::drb::internal
