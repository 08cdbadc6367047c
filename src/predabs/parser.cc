#include "predabs/parser.h"

#include <cctype>
#include <functional>
#include <utility>

#include <absl/container/flat_hash_map.h>

namespace druba::predabs {
namespace {

struct Token {
  enum class Kind : std::uint8_t { kIdent, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::size_t begin = 0;  // byte offsets into the source
  std::size_t end = 0;
};

// An integer literal is decimal whatever its leading zeros (Boost would read "010" as octal and
// reject "09"). The lexer guarantees `digits` is a non-empty run of decimal digits.
Int DecimalLiteral(std::string_view digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? Int(0) : Int(std::string(digits.substr(first)));
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (;;) {
      SkipSpaceAndComments();
      Token token;
      token.line = at_.line;
      token.column = at_.column;
      token.begin = pos_;
      if (pos_ >= text_.size()) {
        token.end = pos_;
        out.push_back(token);
        return out;
      }
      const char c = text_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        token.kind = Token::Kind::kIdent;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          Advance();
        }
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        token.kind = Token::Kind::kNumber;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
          Advance();
        }
        if (pos_ < text_.size() &&
            (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          throw InputError({file_, at_.line, at_.column}, "a number runs into a name");
        }
      } else {
        token.kind = Token::Kind::kPunct;
        static constexpr std::string_view kTwo[] = {
            ":=", "==", "!=", "<=", ">=", "&&", "||", "=>", ".."};
        bool two = false;
        for (const std::string_view p : kTwo) {
          if (text_.substr(pos_, 2) == p) two = true;
        }
        static constexpr std::string_view kOne = "+-*/%()[]{};,:<>!=";
        if (!two && kOne.find(c) == std::string_view::npos) {
          throw InputError({file_, at_.line, at_.column},
                           std::string("unexpected character '") + c + "'");
        }
        Advance();
        if (two) Advance();
      }
      token.end = pos_;
      token.text = std::string(text_.substr(token.begin, token.end - token.begin));
      out.push_back(std::move(token));
    }
  }

 private:
  void Advance() {
    at_.Step(text_[pos_]);
    ++pos_;
  }
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#' || (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        Advance();
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  TextCursor at_;
};

bool IsKeyword(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "shared",    "local",  "int",  "nat",  "bool",  "thread",       "abstraction", "track",
      "predicate", "pc",     "self", "true", "false", "forall",       "exists",      "count",
      "assume",    "assert", "if",   "then", "else",  "goto",         "while",       "do",
      "atomic",    "choose", "or",   "skip", "end",   "fetch_and_add"};
  for (const std::string_view k : kWords) {
    if (k == word) return true;
  }
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file)
      : text_(text), file_(file), tokens_(Lexer(text, file).Run()) {
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
      } else {
        Fail(Cur(), "expected 'shared', 'local', 'thread' or 'abstraction'");
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
  bool Accept(std::string_view text) {
    if (!Peek(text)) return false;
    ++pos_;
    return true;
  }
  const Token& Expect(std::string_view text) {
    if (!Peek(text)) {
      Fail(Cur(), "expected '" + std::string(text) + "'" + Found());
    }
    return tokens_[pos_++];
  }
  std::string Found() const {
    if (AtEnd()) return " but the file ended";
    return " but found '" + Cur().text + "'";
  }
  SourceLocation Where(const Token& t) const { return {file_, t.line, t.column}; }
  [[noreturn]] void Fail(const Token& t, const std::string& message) const {
    throw InputError(Where(t), message);
  }
  const Token& ExpectIdent(const char* what) {
    if (Cur().kind != Token::Kind::kIdent || IsKeyword(Cur().text)) {
      Fail(Cur(), std::string("expected ") + what + Found());
    }
    return tokens_[pos_++];
  }
  Int ExpectNumber(const char* what) {
    bool negative = Accept("-");
    if (Cur().kind != Token::Kind::kNumber) Fail(Cur(), std::string("expected ") + what + Found());
    const Int v = DecimalLiteral(tokens_[pos_++].text);
    return negative ? Int(-v) : v;
  }
  std::uint32_t ExpectSmall(const char* what, std::uint32_t min, std::uint32_t max) {
    const Token& t = Cur();
    const Int v = ExpectNumber(what);
    if (v < min || v > max) {
      Fail(t, std::string(what) + " must be between " + std::to_string(min) + " and " +
                  std::to_string(max));
    }
    return static_cast<std::uint32_t>(v);
  }

  // ---- declarations ----
  void ParseDeclaration() {
    const bool shared = Cur().text == "shared";
    ++pos_;
    Type type = Type::kInt;
    if (Accept("int")) {
      type = Type::kInt;
    } else if (Accept("nat")) {
      type = Type::kNat;
    } else if (Accept("bool")) {
      type = Type::kBool;
    } else {
      Fail(Cur(), "expected a type: 'int', 'nat' or 'bool'" + Found());
    }
    do {
      const Token& name = ExpectIdent("a variable name");
      if (FindVar(name.text)) Fail(name, "'" + name.text + "' is declared twice");
      Variable v{name.text, type, 0, Where(name)};
      if (Accept("=")) {
        const Token& at = Cur();
        if (type == Type::kBool) {
          if (Accept("true")) {
            v.init = 1;
          } else if (Accept("false")) {
            v.init = 0;
          } else {
            Fail(at, "expected 'true' or 'false'" + Found());
          }
        } else {
          v.init = ExpectNumber("an integer");
          if (type == Type::kNat && v.init < 0) Fail(at, "a nat cannot start negative");
        }
      }
      (shared ? program_.shared : program_.locals).push_back(std::move(v));
    } while (Accept(","));
    Expect(";");
  }

  struct VarRef {
    bool local;
    std::uint32_t index;
  };
  std::optional<VarRef> FindVar(const std::string& name) const {
    for (std::uint32_t i = 0; i < program_.shared.size(); ++i) {
      if (program_.shared[i].name == name) return VarRef{false, i};
    }
    for (std::uint32_t i = 0; i < program_.locals.size(); ++i) {
      if (program_.locals[i].name == name) return VarRef{true, i};
    }
    return std::nullopt;
  }

  // ---- threads ----
  struct PendingGoto {
    std::string name;
    SourceLocation where;
  };

  void ParseThread() {
    const Token& kw = Expect("thread");
    ThreadTemplate t;
    t.where = Where(kw);
    t.name = ExpectIdent("a thread name").text;
    for (const ThreadTemplate& other : program_.templates) {
      if (other.name == t.name) Fail(kw, "thread '" + t.name + "' is declared twice");
    }
    if (Accept("*")) t.count = ExpectSmall("a thread count", 1, 1000);
    t.first = static_cast<std::uint32_t>(program_.statements.size());
    const auto template_index = static_cast<std::uint32_t>(program_.templates.size());
    Expect("{");
    labels_.clear();
    pending_gotos_.clear();
    while (!Accept("}")) {
      if (AtEnd()) Fail(Cur(), "the thread's '{' is not closed");
      ParseStatement(template_index);
    }
    t.size = static_cast<std::uint32_t>(program_.statements.size()) - t.first;
    if (t.size == 0) Fail(kw, "thread '" + t.name + "' has no statement");
    for (std::uint32_t i = t.first; i < t.first + t.size; ++i) {
      program_.statements[i].next = i + 1;  // the last one's is patched in Finish()
      for (Op& op : program_.statements[i].body) ResolveGotos(op);
    }
    template_labels_.push_back(labels_);
    program_.templates.push_back(std::move(t));
  }

  void ResolveGotos(Op& op) {
    if (op.kind == Op::Kind::kGoto && op.label >= kPendingBase) {
      const PendingGoto& p = pending_gotos_[op.label - kPendingBase];
      if (p.name == "end") {
        op.label = kEndMarker;
      } else {
        const auto it = labels_.find(p.name);
        if (it == labels_.end()) {
          throw InputError(p.where, "no statement of this thread has the label '" + p.name + "'");
        }
        op.label = it->second;
      }
    }
    for (auto& block : op.blocks) {
      for (Op& inner : block) ResolveGotos(inner);
    }
  }

  void ParseStatement(std::uint32_t template_index) {
    Statement s;
    s.thread_template = template_index;
    const Token& first = Cur();
    s.where = Where(first);
    if ((Cur().kind == Token::Kind::kIdent || Cur().kind == Token::Kind::kNumber) &&
        PeekAt(1, ":")) {
      s.label = Cur().text;
      if (Cur().kind == Token::Kind::kIdent && IsKeyword(s.label)) {
        Fail(Cur(), "'" + s.label + "' is a keyword, not a label");
      }
      if (labels_.contains(s.label)) Fail(Cur(), "the label '" + s.label + "' is used twice");
      pos_ += 2;
    } else {
      s.label = "@" + std::to_string(first.line);
      if (labels_.contains(s.label)) s.label += ":" + std::to_string(first.column);
    }
    const auto index = static_cast<std::uint32_t>(program_.statements.size());
    labels_[s.label] = index;
    const std::size_t text_begin = Cur().begin;
    if (Accept("atomic")) {
      s.body = ParseBlock();
      Accept(";");
    } else if (Peek("while")) {
      const Token& kw = tokens_[pos_++];
      Op op;
      op.kind = Op::Kind::kIf;
      op.where = Where(kw);
      op.exprs.push_back(ParseBoolExpr());
      Expect("do");
      Op stay;
      stay.kind = Op::Kind::kGoto;
      stay.label = index;
      op.blocks.resize(2);
      op.blocks[0].push_back(std::move(stay));
      s.body.push_back(std::move(op));
      Expect(";");
    } else {
      s.body.push_back(ParseOp());
      Expect(";");
    }
    const std::size_t text_end = tokens_[pos_ - 1].end;
    s.text = CollapseSpace(text_.substr(text_begin, text_end - text_begin));
    program_.statements.push_back(std::move(s));
  }

  static std::string CollapseSpace(std::string_view in) {
    std::string out;
    bool space = false;
    for (const char c : in) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
    }
    if (!out.empty() && out.back() == ';') out.pop_back();
    return out;
  }

  std::vector<Op> ParseBlock() {
    Expect("{");
    std::vector<Op> ops;
    while (!Accept("}")) {
      if (AtEnd()) Fail(Cur(), "the '{' is not closed");
      ops.push_back(ParseOp());
      if (!Peek("}")) Expect(";");
    }
    return ops;
  }

  std::vector<Op> ParseBranch() {
    if (Peek("{")) return ParseBlock();
    std::vector<Op> ops;
    ops.push_back(ParseOp());
    return ops;
  }

  Op ParseOp() {
    const Nest nest(*this);
    const Token& t = Cur();
    Op op;
    op.where = Where(t);
    if (Accept("skip")) {
      op.kind = Op::Kind::kAssume;
      op.exprs.push_back(MakeBool(true, op.where));
    } else if (Accept("assume")) {
      op.kind = Op::Kind::kAssume;
      op.exprs.push_back(ParseBoolExpr());
    } else if (Accept("assert")) {
      op.kind = Op::Kind::kAssert;
      op.exprs.push_back(ParseBoolExpr());
    } else if (Accept("goto")) {
      op.kind = Op::Kind::kGoto;
      const Token& label = Cur();
      if (label.kind != Token::Kind::kIdent && label.kind != Token::Kind::kNumber) {
        Fail(label, "expected a label" + Found());
      }
      ++pos_;
      op.label = kPendingBase + static_cast<std::uint32_t>(pending_gotos_.size());
      pending_gotos_.push_back({label.text, Where(label)});
    } else if (Accept("end")) {
      op.kind = Op::Kind::kGoto;
      op.label = kPendingBase + static_cast<std::uint32_t>(pending_gotos_.size());
      pending_gotos_.push_back({"end", op.where});
    } else if (Accept("if")) {
      op.kind = Op::Kind::kIf;
      op.exprs.push_back(ParseBoolExpr());
      Expect("then");
      op.blocks.push_back(ParseBranch());
      op.blocks.emplace_back();
      if (Accept("else")) op.blocks.back() = ParseBranch();
    } else if (Accept("choose")) {
      op.kind = Op::Kind::kChoice;
      op.blocks.push_back(ParseBlock());
      if (!Peek("or")) Fail(Cur(), "'choose' needs at least two blocks joined by 'or'");
      while (Accept("or")) op.blocks.push_back(ParseBlock());
    } else if (t.kind == Token::Kind::kIdent && !IsKeyword(t.text)) {
      ParseAssignments(op);
    } else {
      Fail(t, "expected a statement" + Found());
    }
    return op;
  }

  void ParseAssignments(Op& op) {
    op.kind = Op::Kind::kAssign;
    do {
      const Token& name = ExpectIdent("a variable to assign");
      const auto ref = FindVar(name.text);
      if (!ref) Fail(name, "unknown variable '" + name.text + "'");
      if (Peek("[")) Fail(Cur(), "a thread may assign only its own locals and shared variables");
      for (const Op::Target& other : op.targets) {
        if (other.local == ref->local && other.var == ref->index) {
          Fail(name, "'" + name.text + "' is assigned twice in one statement");
        }
      }
      const Variable& var = ref->local ? program_.locals[ref->index] : program_.shared[ref->index];
      Expect(":=");
      op.targets.push_back({ref->local, ref->index});
      if (Peek("fetch_and_add")) {
        // x := fetch_and_add(v [, e]) is x := v, v := v + e (default 1), atomically.
        const Token& kw = tokens_[pos_++];
        Expect("(");
        const Token& vname = ExpectIdent("a shared variable");
        const auto vref = FindVar(vname.text);
        if (!vref || vref->local) Fail(vname, "fetch_and_add needs a shared integer variable");
        if (program_.shared[vref->index].type == Type::kBool) {
          Fail(vname, "fetch_and_add needs an integer variable");
        }
        ExprPtr amount = Accept(",") ? ParseIntExpr() : MakeNumber(1, Where(kw));
        Expect(")");
        for (const Op::Target& other : op.targets) {
          if (!other.local && other.var == vref->index) {
            Fail(vname, "'" + vname.text + "' is assigned twice in one statement");
          }
        }
        auto read = std::make_unique<Expr>();
        read->kind = Expr::Kind::kShared;
        read->var = vref->index;
        read->where = Where(vname);
        auto sum = std::make_unique<Expr>();
        sum->kind = Expr::Kind::kBinary;
        sum->op = Expr::Op::kAdd;
        sum->where = Where(kw);
        sum->args.push_back(CloneShared(vref->index, Where(vname)));
        sum->args.push_back(std::move(amount));
        if (var.type == Type::kBool) Fail(name, "fetch_and_add returns an integer");
        op.exprs.push_back(std::move(read));
        op.targets.push_back({false, vref->index});
        op.exprs.push_back(std::move(sum));
        continue;
      }
      op.exprs.push_back(var.type == Type::kBool ? ParseBoolExpr() : ParseIntExpr());
    } while (Accept(","));
  }

  static ExprPtr CloneShared(std::uint32_t var, const SourceLocation& where) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kShared;
    e->var = var;
    e->where = where;
    return e;
  }

  // ---- abstractions ----
  void ParseAbstraction() {
    const Token& kw = Expect("abstraction");
    AbstractionSpec spec;
    spec.where = Where(kw);
    spec.name = ExpectIdent("an abstraction name").text;
    for (const AbstractionSpec& other : program_.abstractions) {
      if (other.name == spec.name) Fail(kw, "abstraction '" + spec.name + "' is declared twice");
    }
    Expect("{");
    bool spec_asymmetric = false;
    asymmetric_ = &spec_asymmetric;
    while (!Accept("}")) {
      if (AtEnd()) Fail(Cur(), "the abstraction's '{' is not closed");
      if (Accept("track")) {
        Expect("pc");
        TrackedPc pc;
        if (Accept("[")) {
          pc.thread = ExpectSmall("a thread index", 0, 1000);
          Expect("]");
          spec.symmetric = false;
        }
        spec.pcs.push_back(pc);
      } else if (Accept("predicate")) {
        Predicate p;
        if (Cur().kind == Token::Kind::kIdent && !IsKeyword(Cur().text) && PeekAt(1, ":")) {
          p.name = Cur().text;
          pos_ += 2;
        }
        const std::size_t begin = Cur().begin;
        p.expr = ParseBoolExpr();
        if (p.name.empty())
          p.name = CollapseSpace(text_.substr(begin, tokens_[pos_ - 1].end - begin));
        for (const Predicate& other : spec.predicates) {
          if (other.name == p.name) Fail(tokens_[pos_ - 1], "predicate '" + p.name + "' twice");
        }
        spec.predicates.push_back(std::move(p));
      } else {
        Fail(Cur(), "expected 'track pc' or 'predicate'" + Found());
      }
      Expect(";");
    }
    asymmetric_ = &code_asymmetric_;
    if (spec_asymmetric) spec.symmetric = false;
    program_.abstractions.push_back(std::move(spec));
  }

  // ---- expressions ----
  static ExprPtr MakeBool(bool v, const SourceLocation& where) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kBool;
    e->sort = Sort::kBool;
    e->value = v ? 1 : 0;
    e->where = where;
    return e;
  }
  static ExprPtr MakeNumber(const Int& v, const SourceLocation& where) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kNumber;
    e->value = v;
    e->where = where;
    return e;
  }

  ExprPtr ParseBoolExpr() {
    const Token& at = Cur();
    ExprPtr e = ParseExpr();
    if (e->sort != Sort::kBool) Fail(at, "expected a Boolean expression");
    return e;
  }
  ExprPtr ParseIntExpr() {
    const Token& at = Cur();
    ExprPtr e = ParseExpr();
    if (e->sort != Sort::kInt) Fail(at, "expected an integer expression");
    return e;
  }

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
  void Measure(Expr& e, const Token& at) const {
    for (const ExprPtr& arg : e.args) e.height = std::max(e.height, arg->height + 1);
    if (e.height > kMaxHeight) {
      Fail(at, "expression nested too deeply (more than " + std::to_string(kMaxHeight) +
                   " operators deep; split it with a local variable)");
    }
  }

  ExprPtr Binary(Expr::Op op, ExprPtr a, ExprPtr b, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kBinary;
    e->op = op;
    e->where = Where(at);
    const bool logic = op == Expr::Op::kAnd || op == Expr::Op::kOr || op == Expr::Op::kImplies;
    const bool arith = op == Expr::Op::kAdd || op == Expr::Op::kSub || op == Expr::Op::kMul ||
                       op == Expr::Op::kDiv || op == Expr::Op::kMod;
    const bool equality = op == Expr::Op::kEq || op == Expr::Op::kNe;
    if (logic) {
      if (a->sort != Sort::kBool || b->sort != Sort::kBool) {
        Fail(at, "'" + at.text + "' needs Boolean operands");
      }
      e->sort = Sort::kBool;
    } else if (arith) {
      if (a->sort != Sort::kInt || b->sort != Sort::kInt) {
        Fail(at, "'" + at.text + "' needs integer operands");
      }
      e->sort = Sort::kInt;
    } else if (equality) {
      if (a->sort != b->sort) Fail(at, "'" + at.text + "' compares values of different types");
      e->sort = Sort::kBool;
    } else {
      if (a->sort != Sort::kInt || b->sort != Sort::kInt) {
        Fail(at, "'" + at.text + "' needs integer operands");
      }
      e->sort = Sort::kBool;
    }
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    Measure(*e, at);
    return e;
  }

  ExprPtr ParseExpr() {  // a => b (right associative), lowest
    const Nest nest(*this);
    ExprPtr lhs = ParseOr();
    if (Peek("=>")) {
      const Token& at = tokens_[pos_++];
      return Binary(Expr::Op::kImplies, std::move(lhs), ParseExpr(), at);
    }
    return lhs;
  }
  ExprPtr ParseOr() {
    ExprPtr lhs = ParseAnd();
    while (Peek("||")) {
      const Token& at = tokens_[pos_++];
      lhs = Binary(Expr::Op::kOr, std::move(lhs), ParseAnd(), at);
    }
    return lhs;
  }
  ExprPtr ParseAnd() {
    ExprPtr lhs = ParseNot();
    while (Peek("&&")) {
      const Token& at = tokens_[pos_++];
      lhs = Binary(Expr::Op::kAnd, std::move(lhs), ParseNot(), at);
    }
    return lhs;
  }
  ExprPtr ParseNot() {
    if (Peek("!")) {
      const Nest nest(*this);
      const Token& at = tokens_[pos_++];
      ExprPtr inner = ParseNot();
      if (inner->sort != Sort::kBool) Fail(at, "'!' needs a Boolean operand");
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kUnary;
      e->op = Expr::Op::kNot;
      e->sort = Sort::kBool;
      e->where = Where(at);
      e->args.push_back(std::move(inner));
      Measure(*e, at);
      return e;
    }
    if (Peek("forall") || Peek("exists")) return ParseQuantifier();
    return ParseComparison();
  }
  ExprPtr ParseComparison() {
    ExprPtr lhs = ParseAdditive();
    static constexpr std::pair<std::string_view, Expr::Op> kOps[] = {
        {"==", Expr::Op::kEq}, {"!=", Expr::Op::kNe}, {"<", Expr::Op::kLt},
        {"<=", Expr::Op::kLe}, {">", Expr::Op::kGt},  {">=", Expr::Op::kGe}};
    for (const auto& [text, op] : kOps) {
      if (!Peek(text)) continue;
      const Token& at = tokens_[pos_++];
      ExprPtr rhs = lhs->sort == Sort::kPc ? ParseLabel() : ParseAdditive();
      if (lhs->sort == Sort::kPc && op != Expr::Op::kEq && op != Expr::Op::kNe) {
        Fail(at, "a program counter can only be compared with '==' or '!='");
      }
      return Binary(op, std::move(lhs), std::move(rhs), at);
    }
    if (lhs->sort == Sort::kPc) Fail(Cur(), "compare 'pc' with a label, e.g. 'pc == 2'");
    return lhs;
  }
  ExprPtr ParseLabel() {
    const Token& t = Cur();
    if (t.kind != Token::Kind::kIdent && t.kind != Token::Kind::kNumber) {
      Fail(t, "expected a label" + Found());
    }
    ++pos_;
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kLabel;
    e->sort = Sort::kPc;
    e->where = Where(t);
    pending_labels_.emplace_back(e.get(), t.text);
    return e;
  }
  ExprPtr ParseAdditive() {
    ExprPtr lhs = ParseMultiplicative();
    for (;;) {
      if (Peek("+") || Peek("-")) {
        const Token& at = tokens_[pos_++];
        lhs = Binary(at.text == "+" ? Expr::Op::kAdd : Expr::Op::kSub, std::move(lhs),
                     ParseMultiplicative(), at);
      } else {
        return lhs;
      }
    }
  }
  ExprPtr ParseMultiplicative() {
    ExprPtr lhs = ParseUnary();
    for (;;) {
      if (Peek("*") || Peek("/") || Peek("%")) {
        const Token& at = tokens_[pos_++];
        const Expr::Op op = at.text == "*"   ? Expr::Op::kMul
                            : at.text == "/" ? Expr::Op::kDiv
                                             : Expr::Op::kMod;
        lhs = Binary(op, std::move(lhs), ParseUnary(), at);
      } else {
        return lhs;
      }
    }
  }
  ExprPtr ParseUnary() {
    if (Peek("-")) {
      const Nest nest(*this);
      const Token& at = tokens_[pos_++];
      ExprPtr inner = ParseUnary();
      if (inner->sort != Sort::kInt) Fail(at, "'-' needs an integer operand");
      if (inner->kind == Expr::Kind::kNumber) {
        inner->value = -inner->value;
        return inner;
      }
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kUnary;
      e->op = Expr::Op::kNeg;
      e->where = Where(at);
      e->args.push_back(std::move(inner));
      Measure(*e, at);
      return e;
    }
    return ParsePrimary();
  }

  ExprPtr ParseQuantifier() {
    const Token& kw = tokens_[pos_++];
    auto e = std::make_unique<Expr>();
    e->kind = kw.text == "forall" ? Expr::Kind::kForall : Expr::Kind::kExists;
    e->sort = Sort::kBool;
    e->where = Where(kw);
    ParseBinder(*e);
    Expect(":");
    e->args.push_back(ParseBoolExpr());
    bound_.pop_back();
    Measure(*e, kw);
    return e;
  }
  void ParseBinder(Expr& e) {
    const Token& name = ExpectIdent("a thread variable");
    if (FindVar(name.text)) Fail(name, "'" + name.text + "' already names a variable");
    if (Accept("!=")) {
      Expect("self");
      e.exclude_self = true;
    }
    e.var = program_.num_slots++;
    bound_.emplace_back(name.text, e.var);
  }

  ExprPtr ThreadIndex() {  // after '['
    const Token& at = Cur();
    ExprPtr index = ParseIntExpr();
    Expect("]");
    if (index->kind != Expr::Kind::kBound) {
      *asymmetric_ = true;
      if (index->kind != Expr::Kind::kNumber && index->kind != Expr::Kind::kSelf &&
          index->kind != Expr::Kind::kBinary) {
        Fail(at, "a thread index must be a number, 'self', a bound thread variable or arithmetic");
      }
    }
    return index;
  }

  ExprPtr ParsePrimary() {
    const Token& t = Cur();
    const SourceLocation where = Where(t);
    if (t.kind == Token::Kind::kNumber) {
      ++pos_;
      return MakeNumber(DecimalLiteral(t.text), where);
    }
    if (Accept("(")) {
      ExprPtr e = ParseExpr();
      Expect(")");
      return e;
    }
    if (Accept("true")) return MakeBool(true, where);
    if (Accept("false")) return MakeBool(false, where);
    auto e = std::make_unique<Expr>();
    e->where = where;
    if (Accept("self")) {
      e->kind = Expr::Kind::kSelf;
      *asymmetric_ = true;
      return e;
    }
    if (Accept("pc")) {
      e->kind = Expr::Kind::kPc;
      e->sort = Sort::kPc;
      if (Accept("[")) e->args.push_back(ThreadIndex());
      return e;
    }
    if (Accept("count")) {
      e->kind = Expr::Kind::kCount;
      Expect("(");
      ParseBinder(*e);
      Expect(":");
      e->args.push_back(ParseBoolExpr());
      Expect(")");
      bound_.pop_back();
      Measure(*e, t);
      return e;
    }
    if (t.kind != Token::Kind::kIdent || IsKeyword(t.text)) {
      Fail(t, "expected an expression" + Found());
    }
    ++pos_;
    for (auto it = bound_.rbegin(); it != bound_.rend(); ++it) {
      if (it->first == t.text) {
        e->kind = Expr::Kind::kBound;
        e->var = it->second;
        return e;
      }
    }
    const auto ref = FindVar(t.text);
    if (!ref) Fail(t, "unknown name '" + t.text + "'");
    const Variable& var = ref->local ? program_.locals[ref->index] : program_.shared[ref->index];
    e->kind = ref->local ? Expr::Kind::kLocal : Expr::Kind::kShared;
    e->var = ref->index;
    e->sort = var.type == Type::kBool ? Sort::kBool : Sort::kInt;
    if (Accept("[")) {
      if (!ref->local) Fail(t, "'" + t.text + "' is shared; only locals have a copy per thread");
      e->args.push_back(ThreadIndex());
    }
    return e;
  }

  // ---- after parsing ----
  void Finish() {
    const auto num_statements = static_cast<std::uint32_t>(program_.statements.size());
    for (std::uint32_t t = 0; t < program_.templates.size(); ++t) {
      ThreadTemplate& tt = program_.templates[t];
      tt.end_pc = num_statements + t;
      program_.statements[tt.first + tt.size - 1].next = tt.end_pc;
      std::function<void(Op&)> patch = [&](Op& op) {
        if (op.kind == Op::Kind::kGoto && op.label == kEndMarker) op.label = tt.end_pc;
        for (auto& block : op.blocks) {
          for (Op& inner : block) patch(inner);
        }
      };
      for (std::uint32_t i = tt.first; i < tt.first + tt.size; ++i) {
        for (Op& op : program_.statements[i].body) patch(op);
      }
    }
    program_.error_pc = num_statements + static_cast<std::uint32_t>(program_.templates.size());
    for (auto& [expr, name] : pending_labels_) {
      std::optional<std::uint32_t> found;
      for (std::uint32_t t = 0; t < template_labels_.size(); ++t) {
        std::optional<std::uint32_t> here;
        if (name == "end") {
          here = program_.templates[t].end_pc;
        } else if (const auto it = template_labels_[t].find(name);
                   it != template_labels_[t].end()) {
          here = it->second;
        }
        if (here && found) {
          throw InputError(expr->where,
                           "the label '" + name + "' exists in several threads; it must be unique");
        }
        if (here) found = here;
      }
      if (!found) throw InputError(expr->where, "no statement has the label '" + name + "'");
      expr->value = *found;
    }
    program_.symmetric = program_.templates.size() == 1 && !code_asymmetric_;
  }

  static constexpr std::uint32_t kPendingBase = 0x80000000U;
  static constexpr std::uint32_t kEndMarker = 0x7FFFFFFFU;

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
  std::vector<std::pair<std::string, std::uint32_t>> bound_;
  // Where a use of `self` or a fixed thread index is recorded: the code's flag, or the
  // abstraction's being parsed.
  bool code_asymmetric_ = false;
  bool* asymmetric_ = &code_asymmetric_;
};

const char* OpText(Expr::Op op) {
  switch (op) {
    case Expr::Op::kNeg:
      return "-";
    case Expr::Op::kNot:
      return "!";
    case Expr::Op::kAdd:
      return "+";
    case Expr::Op::kSub:
      return "-";
    case Expr::Op::kMul:
      return "*";
    case Expr::Op::kDiv:
      return "/";
    case Expr::Op::kMod:
      return "%";
    case Expr::Op::kEq:
      return "==";
    case Expr::Op::kNe:
      return "!=";
    case Expr::Op::kLt:
      return "<";
    case Expr::Op::kLe:
      return "<=";
    case Expr::Op::kGt:
      return ">";
    case Expr::Op::kGe:
      return ">=";
    case Expr::Op::kAnd:
      return "&&";
    case Expr::Op::kOr:
      return "||";
    case Expr::Op::kImplies:
      return "=>";
    case Expr::Op::kNone:
      return "?";
  }
  return "?";
}

}  // namespace

std::string Program::PcName(std::uint32_t pc) const {
  if (pc < statements.size()) return statements[pc].label;
  if (pc == error_pc) return "error";
  return "end";
}

std::string ExprToString(const Program& program, const Expr& e) {
  const auto index = [&]() {
    return e.args.empty() ? std::string() : "[" + ExprToString(program, *e.args[0]) + "]";
  };
  const auto binder = [&]() {
    return "i" + std::to_string(e.var) + (e.exclude_self ? " != self" : "");
  };
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return e.value.str();
    case Expr::Kind::kBool:
      return e.value != 0 ? "true" : "false";
    case Expr::Kind::kShared:
      return program.shared[e.var].name;
    case Expr::Kind::kLocal:
      return program.locals[e.var].name + index();
    case Expr::Kind::kPc:
      return "pc" + index();
    case Expr::Kind::kLabel:
      return program.PcName(static_cast<std::uint32_t>(e.value));
    case Expr::Kind::kSelf:
      return "self";
    case Expr::Kind::kBound:
      return "i" + std::to_string(e.var);
    case Expr::Kind::kUnary:
      return OpText(e.op) + ExprToString(program, *e.args[0]);
    case Expr::Kind::kBinary:
      return "(" + ExprToString(program, *e.args[0]) + " " + OpText(e.op) + " " +
             ExprToString(program, *e.args[1]) + ")";
    case Expr::Kind::kForall:
      return "forall " + binder() + ": " + ExprToString(program, *e.args[0]);
    case Expr::Kind::kExists:
      return "exists " + binder() + ": " + ExprToString(program, *e.args[0]);
    case Expr::Kind::kCount:
      return "count(" + binder() + ": " + ExprToString(program, *e.args[0]) + ")";
  }
  return "?";
}

Program ParseProgram(std::string_view text, const std::string& file) {
  // Lines may end in LF, CRLF or a bare CR: each becomes one LF (a bare CR would otherwise leave
  // a `#` comment running to the end of the file).
  std::string lines;
  lines.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      lines += text[i];
    } else if (i + 1 == text.size() || text[i + 1] != '\n') {
      lines += '\n';
    }
  }
  return Parser(lines, file).Run();
}

}  // namespace druba::predabs
