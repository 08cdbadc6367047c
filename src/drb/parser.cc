#include "drb/parser.h"

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "drb/ordered.h"
#include "drb/parser_internal.h"
#include "drb/unsafe.h"

namespace druba::drb {
namespace internal {

// ---- tokens ----

bool Parser::Accept(std::string_view text) {
  if (!Peek(text)) return false;
  ++pos_;
  return true;
}

const Token& Parser::Expect(std::string_view text) {
  if (!Peek(text)) {
    Fail(Cur(), "expected '" + std::string(text) + "'" + Found());
  }
  return tokens_[pos_++];
}

const Token& Parser::ExpectIdent(const char* what) {
  if (Cur().kind != Token::Kind::kIdent || IsKeyword(Cur().text)) {
    Fail(Cur(), std::string("expected ") + what + Found());
  }
  return tokens_[pos_++];
}

Int Parser::ExpectNumber(const char* what) {
  bool negative = Accept("-");
  if (Cur().kind != Token::Kind::kNumber) Fail(Cur(), std::string("expected ") + what + Found());
  const Int v = DecimalLiteral(tokens_[pos_++].text);
  return negative ? Int(-v) : v;
}

std::uint32_t Parser::ExpectSmall(const char* what, std::uint32_t min, std::uint32_t max) {
  const Token& t = Cur();
  const Int v = ExpectNumber(what);
  if (v < min || v > max) {
    Fail(t, std::string(what) + " must be between " + std::to_string(min) + " and " +
                std::to_string(max));
  }
  return static_cast<std::uint32_t>(v);
}

// ---- declarations ----

void Parser::ParseDeclaration() {
  const bool shared = Cur().text == "shared";
  ++pos_;
  Type type = Type::kInt;
  std::optional<Int> lower;
  std::optional<Int> upper;
  if (Accept("int")) {
    type = Type::kInt;
    if (Accept("[")) {  // int[lo, hi], as UPPAAL writes a bounded integer
      const Token& at = Cur();
      lower = ExpectNumber("the lower bound of the range");
      Expect(",");
      upper = ExpectNumber("the upper bound of the range");
      Expect("]");
      if (*upper < *lower) Fail(at, "the range is empty: its upper bound is below its lower one");
    }
  } else if (Accept("nat")) {
    type = Type::kNat;
    lower = Int(0);
  } else if (Accept("bool")) {
    type = Type::kBool;
  } else {
    Fail(Cur(), "expected a type: 'int', 'nat' or 'bool'" + Found());
  }
  do {
    const Token& name = ExpectIdent("a variable name");
    if (FindVar(name.text) || FindArray(name.text) || FindPairArray(name.text)) {
      Fail(name, "'" + name.text + "' is declared twice");
    }
    Variable v{name.text, type, 0, Where(name), false, lower, upper};
    // `shared T a[threads]`: one entry per thread, which that thread writes (a[self]) and every
    // thread reads (a[i]): a local with a copy per thread, under another name. `T a[N]`, N a
    // number: N variables a[0]..a[N-1], shared or local.
    bool per_thread = false;
    std::uint32_t size = 0;
    if (Accept("[")) {
      if (Peek("threads")) {
        if (!shared) {
          Fail(Cur(), "an array with one entry per thread is shared: `shared T " + name.text +
                          "[threads]` (a local array has a size: `local T " + name.text + "[3]`)");
        }
        ++pos_;
        per_thread = true;
        if (Peek("]") && PeekAt(1, "[")) {
          ParsePairArray(name, std::move(v));
          continue;
        }
      } else {
        const Token& at = Cur();
        const Int n = ExpectNumber("an array size (a number, or `threads`)");
        if (n < 1 || n > kMaxArraySize) {
          Fail(at, "an array has 1 to " + std::to_string(kMaxArraySize) + " elements");
        }
        size = static_cast<std::uint32_t>(n);
      }
      Expect("]");
    }
    const std::vector<Int> inits = ParseInitializer(name, shared && !per_thread, size, v);
    if (!v.any && inits.empty() && !v.Holds(v.init)) {
      Fail(name, "'" + name.text + "' starts at 0, outside its range: give its initial value");
    }
    auto& vars = shared && !per_thread ? program_.shared : program_.locals;
    if (size == 0) {
      if (per_thread) per_thread_arrays_.push_back(static_cast<std::uint32_t>(vars.size()));
      vars.push_back(std::move(v));
      continue;
    }
    arrays_[name.text] = {!shared, static_cast<std::uint32_t>(vars.size()), size};
    for (std::uint32_t k = 0; k < size; ++k) {
      Variable element = v;
      element.name = name.text + "[" + std::to_string(k) + "]";
      if (!inits.empty()) element.init = inits[k];
      vars.push_back(std::move(element));
    }
  } while (Accept(","));
  Expect(";");
}

// After `shared T a[threads`, at `][threads] [= v]`: an entry per ordered pair of threads.
void Parser::ParsePairArray(const Token& name, Variable v) {
  pos_ += 2;
  if (!Accept("threads")) {
    Fail(Cur(), "a per-pair array is `" + name.text + "[threads][threads]`" + Found());
  }
  Expect("]");
  if (Accept("=")) v.init = InitialValue(v);
  pair_arrays_[name.text] = static_cast<std::uint32_t>(program_.pairs.size());
  program_.pairs.push_back(std::move(v));
  // Thread permutations act on both indices, which the symmetry reduction does not do.
  MarkAsymmetric(Where(name), "a per-pair array");
}

std::vector<Int> Parser::ParseInitializer(const Token& name, bool shared, std::uint32_t size,
                                          Variable& v) {
  // `= v` (every element), or for an array of a fixed size `= {v0, v1, ...}` (one each), or `= *`.
  std::vector<Int> inits;
  if (!Accept("=")) return inits;
  if (size > 0 && Accept("{")) {
    const Token& open = tokens_[pos_ - 1];
    do {
      inits.push_back(InitialValue(v));
    } while (Accept(","));
    Expect("}");
    if (inits.size() != size) {
      Fail(open, "'" + name.text + "' has " + std::to_string(size) + " elements, and " +
                     std::to_string(inits.size()) + " initial values are given");
    }
  } else if (Peek("*")) {
    if (!shared) Fail(Cur(), "only a shared variable's initial value may be left free (`= *`)");
    if (v.type != Type::kBool && program_.chooses_at.line == 0) program_.chooses_at = Where(Cur());
    DeclareStarted(Cur());
    ++pos_;
    v.any = true;
  } else {
    v.init = InitialValue(v);
  }
  return inits;
}

Int Parser::InitialValue(const Variable& var) {
  const Token& at = Cur();
  if (var.type == Type::kBool) {
    if (Accept("true")) return 1;
    if (Accept("false")) return 0;
    Fail(at, "expected 'true' or 'false'" + Found());
  }
  Int v = ExpectNumber("an integer");
  if (var.type == Type::kNat && v < 0) Fail(at, "a nat cannot start negative");
  if (!var.Holds(v)) Fail(at, "the initial value is outside the variable's range");
  return v;
}

std::optional<Parser::VarRef> Parser::FindVar(const std::string& name) const {
  for (std::uint32_t i = 0; i < program_.shared.size(); ++i) {
    if (program_.shared[i].name == name) return VarRef{false, i};
  }
  for (std::uint32_t i = 0; i < program_.locals.size(); ++i) {
    if (program_.locals[i].name == name) return VarRef{true, i};
  }
  return std::nullopt;
}

// ---- abstractions ----

void Parser::ParseAbstraction() {
  const Token& kw = Expect("abstraction");
  AbstractionSpec spec;
  spec.where = Where(kw);
  spec.name = ExpectIdent("an abstraction name").text;
  for (const AbstractionSpec& other : program_.abstractions) {
    if (other.name == spec.name) Fail(kw, "abstraction '" + spec.name + "' is declared twice");
  }
  Expect("{");
  Asymmetry spec_asymmetric;
  asymmetric_ = &spec_asymmetric;
  std::unordered_set<std::string> names;  // the predicates' (thousands, from finite instances)
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
      if (!names.insert(p.name).second) {
        Fail(tokens_[pos_ - 1], "predicate '" + p.name + "' twice");
      }
      spec.predicates.push_back(std::move(p));
    } else {
      Fail(Cur(), "expected 'track pc' or 'predicate'" + Found());
    }
    Expect(";");
  }
  asymmetric_ = &code_asymmetric_;
  if (spec_asymmetric.yes) spec.symmetric = false;
  program_.abstractions.push_back(std::move(spec));
}

void Parser::DeclareStarted(const Token& at) {
  if (FindVar("__started")) return;
  program_.shared.push_back({"__started", Type::kBool, 0, Where(at), false, {}, {}});
}

void Parser::ParseInitially() {
  const Token& kw = Expect("initially");
  ExprPtr e = ParseBoolExpr();
  WalkExpr(*e, [&](const Expr& x) {
    if (x.kind != Expr::Kind::kShared && x.kind != Expr::Kind::kSharedElement &&
        x.kind != Expr::Kind::kNumber && x.kind != Expr::Kind::kBool &&
        x.kind != Expr::Kind::kUnary && x.kind != Expr::Kind::kBinary) {
      throw InputError(x.where, "`initially` constrains shared variables only");
    }
  });
  DeclareStarted(kw);
  program_.initially.push_back(std::move(e));
  Expect(";");
}

void Parser::ParseUnsafe() {
  const Token& kw = Expect("unsafe");
  Predicate p;
  const std::size_t begin = Cur().begin;
  p.expr = ParseBoolExpr();
  p.name = CollapseSpace(text_.substr(begin, tokens_[pos_ - 1].end - begin));
  // Each quantifier over the threads is split in two in every step's check (the stepping thread
  // and the others), which doubles the check: a bound keeps it small.
  std::size_t quantifiers = 0;
  WalkExpr(*p.expr, [&](const Expr& e) {
    if (e.kind == Expr::Kind::kForall || e.kind == Expr::Kind::kExists ||
        e.kind == Expr::Kind::kCount) {
      if (++quantifiers > kMaxUnsafeQuantifiers) {
        throw InputError(e.where, "an unsafe property has at most " +
                                      std::to_string(kMaxUnsafeQuantifiers) +
                                      " quantifiers (each doubles the check every step makes)");
      }
    }
    const bool own =
        e.kind == Expr::Kind::kSelf || e.kind == Expr::Kind::kLocalElement ||
        ((e.kind == Expr::Kind::kLocal || e.kind == Expr::Kind::kPc) && e.args.empty());
    if (own) {
      throw InputError(e.where,
                       "an unsafe property is about the whole state, not one thread's: name a "
                       "thread's copy through a quantifier (`exists i: pc[i] == crit`) or a "
                       "fixed index (`pc[0]`)");
    }
  });
  p.expr->where = Where(kw);
  program_.unsafe.push_back(std::move(p));
  Expect(";");
}

void Parser::CheckUnsafeEveryStep() {
  drb::CheckUnsafeEveryStep(program_);
}

// ---- after parsing ----

void Parser::SplitLabel(Expr& comparison, const std::vector<std::uint32_t>& places) {
  // pc[e] == L  becomes  pc[e] == L1 || pc[e] == L2 ...  (!=: && of !=): a thread can only be at
  // its own template's statements, so this is "at L in its own template".
  const Expr::Op op = comparison.op;
  const auto compare = [&](std::uint32_t place) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kBinary;
    e->op = op;
    e->sort = Sort::kBool;
    e->where = comparison.where;
    e->args.push_back(CloneExpr(*comparison.args[0]));
    auto label = std::make_unique<Expr>();
    label->kind = Expr::Kind::kLabel;
    label->sort = Sort::kPc;
    label->value = place;
    label->where = comparison.args[1]->where;
    e->args.push_back(std::move(label));
    e->height = 1 + e->args[0]->height;
    return e;
  };
  ExprPtr joined = compare(places.back());
  for (std::size_t i = places.size() - 1; i-- > 0;) {
    auto both = std::make_unique<Expr>();
    both->kind = Expr::Kind::kBinary;
    both->op = op == Expr::Op::kEq ? Expr::Op::kOr : Expr::Op::kAnd;
    both->sort = Sort::kBool;
    both->where = comparison.where;
    ExprPtr one = compare(places[i]);
    both->height = 1 + std::max(one->height, joined->height);
    both->args.push_back(std::move(one));
    both->args.push_back(std::move(joined));
    joined = std::move(both);
  }
  const std::uint32_t height = joined->height;
  comparison = std::move(*joined);
  comparison.height = height;
}

void Parser::Finish() {
  const auto num_statements = static_cast<std::uint32_t>(program_.statements.size());
  for (std::uint32_t t = 0; t < program_.templates.size(); ++t) {
    ThreadTemplate& tt = program_.templates[t];
    tt.end_pc = num_statements + t;
    if (!fixed_next_.contains(tt.first + tt.size - 1)) {
      program_.statements[tt.first + tt.size - 1].next = tt.end_pc;
    }
    std::function<void(Instr&)> patch = [&](Instr& op) {
      if (op.kind == Instr::Kind::kGoto && op.label == kEndMarker) op.label = tt.end_pc;
      for (auto& block : op.blocks) {
        for (Instr& inner : block) patch(inner);
      }
    };
    for (std::uint32_t i = tt.first; i < tt.first + tt.size; ++i) {
      for (Instr& op : program_.statements[i].body) patch(op);
      // The end of a block that ends the thread (an if's last block): the thread's end.
      if (program_.statements[i].next == kEndMarker) program_.statements[i].next = tt.end_pc;
    }
  }
  program_.error_pc = num_statements + static_cast<std::uint32_t>(program_.templates.size());
  for (auto& [expr, name] : pending_labels_) {
    std::vector<std::uint32_t> found;  // one per template that has the label
    for (std::uint32_t t = 0; t < template_labels_.size(); ++t) {
      if (name == "end") {
        found.push_back(program_.templates[t].end_pc);
      } else if (const auto it = template_labels_[t].find(name); it != template_labels_[t].end()) {
        found.push_back(it->second);
      }
    }
    if (found.empty()) throw InputError(expr->where, "no statement has the label '" + name + "'");
    expr->value = found[0];
    if (found.size() > 1) SplitLabel(*label_comparison_.at(expr), found);
  }
  CheckUnsafeEveryStep();
  ChooseInitialValues(program_);
  program_.symmetric = program_.templates.size() == 1 && !code_asymmetric_.yes;
  if (code_asymmetric_.yes) {
    program_.asymmetric_at = code_asymmetric_.where;
    program_.asymmetric_what = code_asymmetric_.what;
  }
  const std::optional<OrderedBreach> unordered = OrderedSymmetryBreach(program_);
  program_.ordered_symmetric = !unordered;
  if (unordered) {
    program_.unordered_at = unordered->where;
    program_.unordered_what = unordered->what;
  }
}

}  // namespace internal

namespace {

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

namespace {

// SMT-LIB's integer division: a = b*q + r with 0 <= r < |b|.
Int EuclidDiv(const Int& a, const Int& b) {
  Int q = a / b;  // truncates toward zero
  const Int r = a - b * q;
  if (r < 0) q += b > 0 ? -1 : 1;
  return q;
}

}  // namespace

std::optional<Int> ApplyBinaryOp(Expr::Op op, const Int& a, const Int& b) {
  switch (op) {
    case Expr::Op::kAdd:
      return a + b;
    case Expr::Op::kSub:
      return a - b;
    case Expr::Op::kMul:
      return a * b;
    case Expr::Op::kDiv:
      if (b == 0) return std::nullopt;
      return EuclidDiv(a, b);
    case Expr::Op::kMod:
      if (b == 0) return std::nullopt;
      return a - b * EuclidDiv(a, b);
    case Expr::Op::kEq:
      return Int(a == b ? 1 : 0);
    case Expr::Op::kNe:
      return Int(a != b ? 1 : 0);
    case Expr::Op::kLt:
      return Int(a < b ? 1 : 0);
    case Expr::Op::kLe:
      return Int(a <= b ? 1 : 0);
    case Expr::Op::kGt:
      return Int(a > b ? 1 : 0);
    case Expr::Op::kGe:
      return Int(a >= b ? 1 : 0);
    case Expr::Op::kAnd:
      return Int(a != 0 && b != 0 ? 1 : 0);
    case Expr::Op::kOr:
      return Int(a != 0 || b != 0 ? 1 : 0);
    case Expr::Op::kImplies:
      return Int(a == 0 || b != 0 ? 1 : 0);
    default:
      break;
  }
  throw std::logic_error("a binary operator expected");
}

ExprPtr CloneExpr(const Expr& e) {
  auto out = std::make_unique<Expr>();
  out->kind = e.kind;
  out->op = e.op;
  out->sort = e.sort;
  out->exclude_self = e.exclude_self;
  out->var = e.var;
  out->value = e.value;
  out->where = e.where;
  out->height = e.height;
  for (const ExprPtr& arg : e.args) out->args.push_back(CloneExpr(*arg));
  return out;
}

std::string ExprToString(const Program& program, const Expr& e, const std::string& self_as) {
  const auto sub = [&](const Expr& arg) { return ExprToString(program, arg, self_as); };
  const auto index = [&]() {
    if (e.args.empty()) return self_as.empty() ? std::string() : "[" + self_as + "]";
    return "[" + sub(*e.args[0]) + "]";
  };
  const auto binder = [&]() {
    return "i" + std::to_string(e.var) + (e.exclude_self ? " != self" : "");
  };
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return e.value.str();
    case Expr::Kind::kHavoc:
      return "*";
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
      return self_as.empty() ? std::string("self") : self_as;
    case Expr::Kind::kBound:
      return "i" + std::to_string(e.var);
    case Expr::Kind::kUnary:
      return OpText(e.op) + sub(*e.args[0]);
    case Expr::Kind::kBinary:
      return "(" + sub(*e.args[0]) + " " + OpText(e.op) + " " + sub(*e.args[1]) + ")";
    case Expr::Kind::kForall:
      return "forall " + binder() + ": " + sub(*e.args[0]);
    case Expr::Kind::kExists:
      return "exists " + binder() + ": " + sub(*e.args[0]);
    case Expr::Kind::kCount:
      return "count(" + binder() + ": " + sub(*e.args[0]) + ")";
    case Expr::Kind::kPair:
      return program.pairs[e.var].name + "[" + sub(*e.args[0]) + "][" + sub(*e.args[1]) + "]";
    case Expr::Kind::kIte:
      return "(if " + sub(*e.args[0]) + " then " + sub(*e.args[1]) + " else " + sub(*e.args[2]) +
             ")";
    case Expr::Kind::kSharedElement:
    case Expr::Kind::kLocalElement: {
      const std::string& first =
          (e.kind == Expr::Kind::kSharedElement ? program.shared : program.locals)[e.var]
              .name;  // "a[0]"
      return first.substr(0, first.find('[')) + "[" + sub(*e.args[0]) + "]";
    }
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
  Program program = internal::Parser(lines, file).Run();
  if (file.ends_with(".c")) {
    for (Statement& st : program.statements) {  // `c21`, `c21_2`: C line 21
      const std::size_t digits = st.label.find_first_not_of("0123456789", 1);
      const std::string line =
          st.label.substr(1, digits == std::string::npos ? digits : digits - 1);
      if (st.label.starts_with('c') && !line.empty() && line.size() < 9 &&
          (digits == std::string::npos || st.label[digits] == '_')) {
        st.where = {file, static_cast<std::uint32_t>(std::stoul(line)), 0};
      }
    }
  }
  return program;
}

}  // namespace druba::drb
