#include "check/drb_explicit.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "check/thread_count.h"
#include "drb/ast.h"
#include "drb/parser.h"

namespace druba::check {
namespace {

using drb::Expr;
using drb::Instr;
using drb::Int;
using drb::Program;
// Shared values, then per thread: location, locals, its row of each per-pair array.
using Row = std::vector<std::int64_t>;

struct RuntimeError {};  // inside a statement: the thread fails

Int Truth(bool b) {
  return b ? 1 : 0;
}

// The concrete semantics of the program with n threads, as docs/drb.md states it: every
// subexpression is evaluated (an error anywhere fails the statement), division is Euclidean, an
// index outside 0..n-1 or a negative nat is an error; a statement is one atomic step.
class Interpreter {
 public:
  Interpreter(const Program& p, std::uint32_t n) : p_(p), n_(n) {
    for (std::uint32_t t = 0; t < p.templates.size(); ++t) {
      const std::uint32_t count = p.templates.size() == 1 ? n : p.templates[t].count;
      for (std::uint32_t c = 0; c < count; ++c) template_of_.push_back(t);
    }
  }
  std::size_t Width() const { return p_.shared.size() + std::size_t{n_} * Stride(); }
  std::size_t Pc(std::uint32_t t) const { return p_.shared.size() + t * Stride(); }
  const drb::ThreadTemplate& TemplateOf(std::uint32_t t) const {
    return p_.templates[template_of_[t]];
  }

  Row Initial() const {
    Row s(Width());
    for (std::size_t v = 0; v < p_.shared.size(); ++v) s[v] = Small(p_.shared[v].init);
    for (std::uint32_t t = 0; t < n_; ++t) {
      s[Pc(t)] = TemplateOf(t).first;
      for (std::size_t v = 0; v < p_.locals.size(); ++v)
        s[Pc(t) + 1 + v] = Small(p_.locals[v].init);
      for (std::uint32_t a = 0; a < p_.pairs.size(); ++a) {
        for (std::uint32_t c = 0; c < n_; ++c) s[Pair(t, a, c)] = Small(p_.pairs[a].init);
      }
    }
    return s;
  }

  // Every successor of thread t in s; `failed` is set when some path fails.
  std::vector<Row> Successors(const Row& s, std::uint32_t t, bool* failed) const {
    std::vector<Row> out;
    const auto pc = static_cast<std::uint32_t>(s[Pc(t)]);
    if (pc >= p_.statements.size()) return out;  // finished or failed
    std::vector<Int> state(s.begin(), s.end());
    Run({{&p_.statements[pc].body, 0}}, std::move(state), t, pc, out, failed);
    return out;
  }

  // At its end, failed, or at a statement labelled end...: it may rest for ever.
  bool Finished(const Row& s, std::uint32_t t) const {
    const auto pc = static_cast<std::uint64_t>(s[Pc(t)]);
    return pc >= p_.statements.size() || p_.statements[pc].label.starts_with("end");
  }

 private:
  using Frames = std::vector<std::pair<const std::vector<Instr>*, std::size_t>>;
  std::size_t Stride() const { return 1 + p_.locals.size() + p_.pairs.size() * n_; }
  std::size_t Pair(std::uint32_t row, std::uint32_t array, std::uint32_t column) const {
    return Pc(row) + 1 + p_.locals.size() + std::size_t{array} * n_ + column;
  }
  std::uint32_t ThreadAt(const Expr& index, const std::vector<Int>& st, std::uint32_t self,
                         std::vector<Int>& bound) const {
    const Int i = Eval(index, st, self, bound);
    if (i < 0 || i >= n_) throw RuntimeError{};
    return static_cast<std::uint32_t>(i);
  }
  static std::int64_t Small(const Int& v) {
    if (v > INT64_MAX || v < INT64_MIN) return INT64_MIN;  // not in any row: leaves the set
    return static_cast<std::int64_t>(v);
  }

  void Run(Frames frames, std::vector<Int> st, std::uint32_t t, std::uint32_t stmt,
           std::vector<Row>& out, bool* failed) const {
    const auto finish = [&](std::uint32_t target) {
      st[Pc(t)] = target;
      Row row(st.size());
      for (std::size_t i = 0; i < st.size(); ++i) row[i] = Small(st[i]);
      out.push_back(std::move(row));
    };
    try {
      while (!frames.empty()) {
        auto& [block, index] = frames.back();
        if (index == block->size()) {
          frames.pop_back();
          continue;
        }
        const Instr& op = (*block)[index++];
        switch (op.kind) {
          case Instr::Kind::kAssign:
            Assign(op, st, t);
            break;
          case Instr::Kind::kAssignEach:
            AssignEach(op, st, t);
            break;
          case Instr::Kind::kAssume:
            if (Eval(*op.exprs[0], st, t) == 0) return;
            break;
          case Instr::Kind::kAssert:
            if (Eval(*op.exprs[0], st, t) == 0) throw RuntimeError{};
            break;
          case Instr::Kind::kIf: {
            const bool taken = Eval(*op.exprs[0], st, t) != 0;
            frames.emplace_back(&op.blocks[taken ? 0 : 1], 0);
            break;
          }
          case Instr::Kind::kChoice:
            for (const auto& alternative : op.blocks) {
              Frames more = frames;
              more.emplace_back(&alternative, 0);
              Run(std::move(more), st, t, stmt, out, failed);
            }
            return;
          case Instr::Kind::kGoto:
            return finish(op.label);
        }
      }
      finish(p_.statements[stmt].next);
    } catch (const RuntimeError&) {
      *failed = true;
    }
  }

  // Every right-hand side and index first; then, unless a nat would go negative, the writes.
  void Assign(const Instr& op, std::vector<Int>& st, std::uint32_t t) const {
    std::vector<Int> values;
    std::vector<std::size_t> slots;
    for (const auto& e : op.exprs) values.push_back(Eval(*e, st, t));
    for (std::size_t i = 0; i < op.targets.size(); ++i) {
      const auto& x = op.targets[i];
      const auto& var = drb::TargetVariable(p_, x);
      if (x.pair) {
        std::vector<Int> bound(p_.num_slots);
        const std::uint32_t row = ThreadAt(*x.index, st, t, bound);
        slots.push_back(Pair(row, x.var, ThreadAt(*x.column, st, t, bound)));
        if (!var.Holds(values[i])) throw RuntimeError{};
        continue;
      }
      std::size_t element = x.var;
      std::uint32_t owner = t;
      if (x.index) {
        const Int k = Eval(*x.index, st, t);
        if (k < 0 || k >= (x.size > 0 ? Int(x.size) : Int(n_))) throw RuntimeError{};
        if (x.size > 0) {
          element += static_cast<std::size_t>(k);
        } else {
          owner = static_cast<std::uint32_t>(k);
        }
      }
      slots.push_back(x.local ? Pc(owner) + 1 + element : element);
      if (!var.Holds(values[i])) throw RuntimeError{};
    }
    for (std::size_t i = 0; i < slots.size(); ++i) st[slots[i]] = values[i];
  }

  // forall j: a[j] := e, ...: every thread's values from the state before, then the writes.
  void AssignEach(const Instr& op, std::vector<Int>& st, std::uint32_t t) const {
    std::vector<std::pair<std::size_t, Int>> writes;
    std::vector<Int> bound(p_.num_slots);
    for (std::uint32_t j = 0; j < n_; ++j) {
      if (op.exclude_self && j == t) continue;
      bound[op.slot] = j;
      for (std::size_t i = 0; i < op.targets.size(); ++i) {
        const Int v = Eval(*op.exprs[i], st, t, bound);
        if (!p_.locals[op.targets[i].var].Holds(v)) throw RuntimeError{};
        writes.emplace_back(Pc(j) + 1 + op.targets[i].var, v);
      }
    }
    for (const auto& [slot, v] : writes) st[slot] = v;
  }

  Int Eval(const Expr& e, const std::vector<Int>& st, std::uint32_t self) const {
    std::vector<Int> bound(p_.num_slots);
    return Eval(e, st, self, bound);
  }
  Int Eval(const Expr& e, const std::vector<Int>& st, std::uint32_t self,
           std::vector<Int>& bound) const {
    const auto thread = [&]() -> std::size_t {
      return e.args.empty() ? self : ThreadAt(*e.args[0], st, self, bound);
    };
    switch (e.kind) {
      case Expr::Kind::kNumber:
      case Expr::Kind::kBool:
      case Expr::Kind::kLabel:
        return e.value;
      case Expr::Kind::kShared:
        return st[e.var];
      case Expr::Kind::kLocal:
        return st[Pc(static_cast<std::uint32_t>(thread())) + 1 + e.var];
      case Expr::Kind::kPc:
        return st[Pc(static_cast<std::uint32_t>(thread()))];
      case Expr::Kind::kPair: {
        const std::uint32_t row = ThreadAt(*e.args[0], st, self, bound);
        return st[Pair(row, e.var, ThreadAt(*e.args[1], st, self, bound))];
      }
      case Expr::Kind::kSharedElement:
      case Expr::Kind::kLocalElement: {
        const Int i = Eval(*e.args[0], st, self, bound);
        if (i < 0 || i >= e.value) throw RuntimeError{};
        const std::size_t var = e.var + static_cast<std::size_t>(i);
        return st[e.kind == Expr::Kind::kSharedElement ? var : Pc(self) + 1 + var];
      }
      case Expr::Kind::kSelf:
        return self;
      case Expr::Kind::kBound:
        return bound[e.var];
      case Expr::Kind::kUnary: {
        const Int v = Eval(*e.args[0], st, self, bound);
        return e.op == Expr::Op::kNot ? Truth(v == 0) : Int(-v);
      }
      case Expr::Kind::kBinary:
        return Apply(e.op, Eval(*e.args[0], st, self, bound), Eval(*e.args[1], st, self, bound));
      case Expr::Kind::kIte:  // only the branch taken
        return Eval(*e.args[Eval(*e.args[0], st, self, bound) != 0 ? 1 : 2], st, self, bound);
      case Expr::Kind::kHavoc:  // such a program's explicit certificates are refused
        throw std::logic_error("check: `*` in an explicit certificate's program");
      case Expr::Kind::kForall:
      case Expr::Kind::kExists:
      case Expr::Kind::kCount: {  // over the threads, every body evaluated
        std::uint32_t count = 0;
        std::uint32_t range = 0;
        for (std::uint32_t i = 0; i < n_; ++i) {
          if (e.exclude_self && i == self) continue;
          ++range;
          bound[e.var] = i;
          if (Eval(*e.args[0], st, self, bound) != 0) ++count;
        }
        if (e.kind == Expr::Kind::kForall) return Truth(count == range);
        return e.kind == Expr::Kind::kExists ? Truth(count > 0) : Int(count);
      }
    }
    throw std::logic_error("check: an expression of no kind");
  }

  static Int Apply(Expr::Op op, const Int& a, const Int& b) {
    using Op = Expr::Op;
    if ((op == Op::kDiv || op == Op::kMod) && b == 0) throw RuntimeError{};
    switch (op) {
      case Op::kAdd:
        return a + b;
      case Op::kSub:
        return a - b;
      case Op::kMul:
        return a * b;
      case Op::kDiv:
        return (a - Mod(a, b)) / b;
      case Op::kMod:
        return Mod(a, b);
      case Op::kEq:
        return Truth(a == b);
      case Op::kNe:
        return Truth(a != b);
      case Op::kLt:
        return Truth(a < b);
      case Op::kLe:
        return Truth(a <= b);
      case Op::kGt:
        return Truth(a > b);
      case Op::kGe:
        return Truth(a >= b);
      case Op::kAnd:
        return Truth(a != 0 && b != 0);
      case Op::kOr:
        return Truth(a != 0 || b != 0);
      default:
        return Truth(a == 0 || b != 0);  // implies
    }
  }
  // The remainder r of Euclidean division: a = b*q + r, 0 <= r < |b|.
  static Int Mod(const Int& a, const Int& b) {
    Int r = a % b;  // the sign of a
    if (r < 0) r += b < 0 ? Int(-b) : b;
    return r;
  }

  const Program& p_;
  std::uint32_t n_;
  std::vector<std::uint32_t> template_of_;
};

// Where the program tells threads apart, or "" when it is symmetric (docs/drb.md: one template;
// `self` and a quantified thread only as the thread index of a location or a per-thread local,
// no other thread index; a per-thread entry written only as the thread's own). Then a
// permutation of the threads maps a state's successors under thread t onto those of the permuted
// state under the permuted t, and keeps "some thread failed" and "deadlock". Decided here on the
// syntax tree, apart from the reader's own flag.
class SymmetryTest {
 public:
  explicit SymmetryTest(const Program& p) : p_(p) {}
  std::string Asymmetry() {
    if (p_.templates.size() != 1) return "it has more than one thread template";
    if (!p_.pairs.empty()) {  // the canonical form below sorts rows, not columns
      const SourceLocation& at = p_.pairs[0].where;
      return fmt::format("{}:{}:{} a per-pair array", at.file, at.line, at.column);
    }
    for (const drb::Statement& statement : p_.statements) Block(statement.body);
    return why_;
  }

 private:
  void Block(const std::vector<Instr>& block) {
    for (const Instr& op : block) {
      for (const Instr::Target& x : op.targets) {
        if (!x.index) continue;
        if (x.size == 0 && x.index->kind != Expr::Kind::kSelf) {
          Flag(x.index->where, "writes another thread's entry");
        }
        if (x.size > 0) Walk(*x.index);
      }
      for (const auto& e : op.exprs) Walk(*e);
      for (const auto& b : op.blocks) Block(b);
    }
  }
  void Walk(const Expr& e) {
    const bool per_thread = e.kind == Expr::Kind::kLocal || e.kind == Expr::Kind::kPc;
    if (e.kind == Expr::Kind::kSelf) Flag(e.where, "uses `self` as a number");
    if (e.kind == Expr::Kind::kBound) Flag(e.where, "uses a quantified thread as a number");
    if (per_thread && !e.args.empty()) {
      const Expr::Kind index = e.args[0]->kind;
      if (index != Expr::Kind::kSelf && index != Expr::Kind::kBound) {
        Flag(e.args[0]->where, "names a thread by an index");
      }
      return;  // the index is self or a quantified thread: nothing below it
    }
    for (const auto& a : e.args) Walk(*a);
  }
  void Flag(const SourceLocation& where, const char* what) {
    if (why_.empty()) why_ = fmt::format("{}:{}:{} {}", where.file, where.line, where.column, what);
  }
  const Program& p_;
  std::string why_;
};

// The canonical form of a state under the thread symmetry: the threads' parts (location and
// locals) sorted. Two states are permutations of each other iff their forms agree.
Row Canonical(const Row& s, std::size_t first, std::size_t stride, std::uint32_t n) {
  std::vector<Row> parts;
  for (std::uint32_t t = 0; t < n; ++t) {
    const auto at = s.begin() + static_cast<std::ptrdiff_t>(first + t * stride);
    parts.emplace_back(at, at + static_cast<std::ptrdiff_t>(stride));
  }
  std::sort(parts.begin(), parts.end());
  Row out(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(first));
  for (const Row& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// The form by which a state is looked up: itself, or up to symmetry its canonical form.
struct Form {
  bool up_to_symmetry = false;
  std::size_t first = 0;  // the shared variables' words
  std::size_t stride = 0;
  std::uint32_t n = 0;
  Row operator()(const Row& s) const { return up_to_symmetry ? Canonical(s, first, stride, n) : s; }
};

// "symmetry": "threads" (the states are one per orbit of the thread symmetry, each standing for
// every permutation of its threads), "none", or no field (every state listed).
bool UpToSymmetry(const JsonValue& doc) {
  if (!doc.Has("symmetry")) return false;
  const JsonValue& symmetry = doc.At("symmetry");
  if (symmetry.AsString() != "threads" && symmetry.AsString() != "none") {
    throw InputError(symmetry.where, "'symmetry' is \"threads\" or \"none\"");
  }
  return symmetry.AsString() == "threads";
}

std::string Text(const Row& s) {
  return "[" + fmt::format("{}", fmt::join(s, ", ")) + "]";
}

// The rows of the certificate; InputError for a row of the wrong width or a thread at a location
// its template does not have (a failed thread is left to the property check).
absl::flat_hash_set<Row> ReadRows(const JsonValue& doc, const Interpreter& m, const Program& p,
                                  std::uint32_t n) {
  absl::flat_hash_set<Row> set;
  for (const JsonValue& row : doc.At("states").Items()) {
    const std::span<const std::int64_t> v = row.Integers();
    if (v.size() != m.Width()) {
      throw InputError(row.where, fmt::format("a state has {} numbers: the shared variables, then "
                                              "each thread's location and locals",
                                              m.Width()));
    }
    for (std::uint32_t t = 0; t < n; ++t) {
      const std::int64_t pc = v[m.Pc(t)];
      const auto& tt = m.TemplateOf(t);
      if (pc != tt.end_pc && pc != p.error_pc && (pc < tt.first || pc >= tt.first + tt.size)) {
        throw InputError(row.where, fmt::format("thread {} is at location {}, which its template "
                                                "does not have",
                                                t, pc));
      }
    }
    set.emplace(v.begin(), v.end());
  }
  return set;
}

// The first failed state, step out of the set or deadlock met walking the set, if any.
struct Fault {
  std::string condition;
  std::string what;
};

// One state's failures: a failed thread, a step that leaves the set, a deadlock.
std::optional<Fault> FaultOf(const Row& s, const absl::flat_hash_set<Row>& set, const Form& form,
                             const Interpreter& m, const Program& p, bool deadlock) {
  const std::uint32_t n = form.n;
  bool stuck = true;
  bool unfinished = false;
  for (std::uint32_t t = 0; t < n; ++t) {
    if (s[m.Pc(t)] == p.error_pc) {
      return Fault{"property", Text(s) + ": thread " + std::to_string(t) + " has failed"};
    }
    bool failed = false;
    const std::vector<Row> next = m.Successors(s, t, &failed);
    stuck = stuck && next.empty() && !failed;
    unfinished = unfinished || !m.Finished(s, t);
    for (const Row& x : next) {
      if (!set.contains(form(x))) {
        return Fault{"closure", Text(s) + " under thread " + std::to_string(t) + " goes to " +
                                    Text(x) + ", not in the set"};
      }
    }
    if (failed) {
      return Fault{"closure", Text(s) + " under thread " + std::to_string(t) + ": the step fails"};
    }
  }
  if (deadlock && stuck && unfinished) return Fault{"property", Text(s) + " is a deadlock"};
  return std::nullopt;
}

// Walks the set in sorted order, so that the state a failure names is the same at every run (by
// pointer: a copy of every state would double the checker's memory on a large certificate).
// Sets *stopped and returns nothing when a limit ends the walk.
std::optional<Fault> WalkSorted(const absl::flat_hash_set<Row>& set, const Form& form,
                                const Interpreter& m, const Program& p, bool deadlock,
                                LimitWatch* limits, std::string* stopped) {
  std::vector<const Row*> sorted;
  sorted.reserve(set.size());
  for (const Row& s : set) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(), [](const Row* a, const Row* b) { return *a < *b; });
  for (const Row* row : sorted) {
    if (limits != nullptr && limits->Poll()) {
      *stopped = *limits->Poll();
      return std::nullopt;
    }
    if (std::optional<Fault> fault = FaultOf(*row, set, form, m, p, deadlock)) return fault;
  }
  return std::nullopt;
}

}  // namespace

CheckResult CheckDrbExplicitCertificate(const JsonValue& doc, const std::string& digest,
                                        const std::string& source, const std::string& file,
                                        LimitWatch* limits) {
  ExpectSchema(doc, "drb explicit", {"deadlock", "states"}, {"symmetry"});
  CheckResult r;
  const Program p = drb::ParseProgram(source, file);
  const bool up_to_symmetry = UpToSymmetry(doc);
  const std::uint32_t n = ReadThreadCount(doc.At("threads"), p);
  const bool deadlock = doc.At("deadlock").AsBool() || p.check_deadlock;
  const Interpreter m(p, n);
  absl::flat_hash_set<Row> set = ReadRows(doc, m, p, n);
  if (doc.At("digest").AsString() != digest) {
    return Invalid(std::move(r), "digest", "the model is not the one certified");
  }
  if (p.chooses_at.line != 0) {  // a step's successors are not a finite list to walk
    return Invalid(std::move(r), "states",
                   fmt::format("the program chooses values (`*` at line {}), so no list of "
                               "states is all the reachable ones",
                               p.chooses_at.line));
  }
  r.passed.emplace_back("digest");
  // Up to symmetry, every state stands for its orbit: the set is kept as canonical forms, and
  // each state met (initial, successor) is looked up by its form.
  // (A thread's part is its location and locals: with one thread, the rest of the state. A part
  // of 0 words for one thread made every form the shared words alone, and the forms were then
  // read past their end as states: a forged certificate was valid, or the checker crashed.)
  const std::size_t stride = n > 1 ? m.Pc(1) - m.Pc(0) : m.Initial().size() - m.Pc(0);
  const Form form{up_to_symmetry, m.Pc(0), stride, n};
  if (up_to_symmetry) {
    if (const std::string why = SymmetryTest(p).Asymmetry(); !why.empty()) {
      return Invalid(std::move(r), "symmetry",
                     "the states are given up to thread symmetry, but the program is not "
                     "symmetric: " +
                         why);
    }
    absl::flat_hash_set<Row> forms;
    for (const Row& s : set) forms.insert(form(s));
    set = std::move(forms);
    r.passed.emplace_back("symmetry (the program's threads are interchangeable)");
  }
  if (!set.contains(form(m.Initial()))) {
    return Invalid(std::move(r), "initial",
                   "the initial state " + Text(m.Initial()) + " is not in the set");
  }
  r.passed.push_back(fmt::format("initial ({} threads)", n));
  if (std::optional<Fault> fault = WalkSorted(set, form, m, p, deadlock, limits, &r.stopped)) {
    return Invalid(std::move(r), fault->condition, fault->what);
  }
  if (!r.stopped.empty()) return r;
  r.passed.emplace_back(deadlock ? "property (no failed state, no deadlock)"
                                 : "property (no failed state)");
  r.passed.emplace_back("closure");
  r.valid = true;
  return r;
}

}  // namespace druba::check
