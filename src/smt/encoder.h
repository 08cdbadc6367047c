// Symbolic encoding of `.drb` programs for the solver: states, the well-formedness every reachable
// state has, the initial states, expressions, and the transition relation of one statement
// executed by one thread. The thread count is either fixed (quantifiers over threads are
// expanded) or a solver variable (quantifiers stay quantifiers).
//
// The encoding follows IntModel (model.cc) exactly: integer division and modulo as in SMT-LIB,
// a runtime error (division by zero, a nat going negative, a thread index out of range) sends
// the thread to the error location with the state as it was before the failing step. Expressions
// are evaluated in full (no short-circuit, every quantifier body for every thread), so an error
// anywhere in a statement's expressions is an error of the statement.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drb/counting.h"
#include "interp/program.h"
#include "smt/solver.h"

namespace druba::predabs {

// That `value` lies in `var`'s declared range (true for an unbounded int).
inline Solver::Term Declared(Solver& s, const Variable& var, Solver::Term value) {
  std::vector<Solver::Term> parts;
  if (var.lower) parts.push_back(s.Le(s.IntValue(*var.lower), value));
  if (var.upper) parts.push_back(s.Le(value, s.IntValue(*var.upper)));
  return s.And(parts);
}

// The operator of a count comparison (drb::ComparedWithNumber) read as `count OP k`: turned round
// when count is on the right.
inline Expr::Op CountOnLeft(const Expr& e) {
  if (e.args[0]->kind == Expr::Kind::kCount) return e.op;
  switch (e.op) {
    case Expr::Op::kLt:
      return Expr::Op::kGt;
    case Expr::Op::kLe:
      return Expr::Op::kGe;
    case Expr::Op::kGt:
      return Expr::Op::kLt;
    case Expr::Op::kGe:
      return Expr::Op::kLe;
    default:
      return e.op;
  }
}

using Term = Solver::Term;

struct SymState {
  std::vector<Term> shared;  // Int
  std::vector<Term> locals;  // Int -> Int, indexed by thread
  Term pc = 0;               // Int -> Int, indexed by thread
  // (Int, Int) -> Int, indexed by the row's thread and the column's (a fixed or ordered count
  // only: a program with one is never symmetric).
  std::vector<Term> pairs;
  // With the thread count symbolic: the value of each count the encoder tracks (Encoder::
  // TrackCounts), an Int each.
  std::vector<Term> counts;
  // With the thread count ordered: each rank count the encoder tracks (TrackCounts), Int -> Int
  // from its parameter to the number of threads it counts there.
  std::vector<Term> ranks;
};

// Fixed: threads are the integers 0..n-1. Symbolic: threads are elements of an uninterpreted
// sort, the program's threads are those in `alive`, and thread 0 is `zero`. Ordered: symbolic, but
// threads are the integers 0..n-1 with n a solver variable (ids compared, stored and used as
// indices as at a fixed count; quantifiers stay quantifiers).
struct ThreadCount {
  std::optional<std::uint32_t> fixed;
  Term n = 0;      // the thread count: fixed, the numeral; symbolic, an Int of at least the min
  Term zero = 0;   // thread 0
  Term alive = 0;  // symbolic: Thread -> Bool
  bool ordered = false;
};

class Encoder {
 public:
  // Tracks the program's counts used as values (TrackCounts).
  Encoder(const Program& program, Solver& solver);

  // With the thread count symbolic, a count of the threads' own states used as a value (not
  // compared with a number) is an integer of the state: its value in the initial state is all
  // threads or none, a step changes it by the stepping thread's change, and well-formed states
  // relate it to the threads (at least m threads counted, at least m not, for m = 1, 2). This
  // tracks those in `e` (an abstraction's predicate; the program's are tracked from the start).
  void TrackCounts(const Expr& e);
  // With the count ordered, a rank count (drb::RankParameter) in `e` is likewise a function of its
  // parameter in each state (RankFacts below).
  void TrackRanks(const Expr& e);
  // How many witnesses well-formed states relate a tracked count to (1 or 2; default 2). One is
  // cheaper for the solver; two also says that a count of all threads but one leaves every other
  // thread counted.
  void SetCountWitnesses(std::uint32_t m) { count_witnesses_ = m; }
  bool TracksCounts() const { return !counts_.empty(); }
  // Whether tracked count k's body holds for `thread` in `state`.
  Term Counted(std::size_t k, const SymState& state, const ThreadCount& count, Term thread);

  Solver& solver() { return s_; }
  // At a fixed count, a step's post state is stated thread by thread (`post.l[i] == l'` for each
  // thread i < n) instead of as an equality of arrays, so that states of scalars (the Horn
  // encoding's relation arguments, in Store chains) reduce to scalar equalities.
  void SetPointwisePosts(bool on) { pointwise_posts_ = on; }

  ThreadCount Fixed(std::uint32_t n) { return {n, s_.Num(n), s_.Num(0), 0}; }
  // A symbolic count of at least `min` threads; the constraints that say so go to `facts`.
  ThreadCount Symbolic(std::uint32_t min, std::vector<Term>& facts);
  // An ordered symbolic count of at least `min` threads (n >= min goes to `facts`).
  ThreadCount Ordered(std::uint32_t min, std::vector<Term>& facts);
  SymState FreshState(const std::string& tag, const ThreadCount& count);
  // A fresh thread variable (for quantifiers and symbolic actors).
  Term FreshThread(const ThreadCount& count, const std::string& hint) {
    return count.fixed || count.ordered ? s_.FreshInt(hint) : s_.FreshThread(hint);
  }
  Term ThreadNumber(const ThreadCount& count, std::uint32_t i) {
    return i == 0 ? count.zero : s_.Num(i);
  }
  // The body of `forall`/`exists` expression `quantified` for the thread `thread` in `state` from
  // thread `self`'s view, false where its evaluation fails (as Eval).
  Term Instance(const Expr& quantified, const SymState& state, const ThreadCount& count, Term self,
                Term thread);

  // Fresh threads that witness the quantifiers statement `stmt` evaluates (those not inside
  // another), read in `pre` from `actor`'s view: a thread a `forall` fails at and one an `exists`
  // holds at, when there is one. The facts that say so go to `facts`; they constrain the fresh
  // threads only, so a query stays equisatisfiable with them, and an invariant instantiated at
  // these threads reaches the thread a failing `assert forall ...` is about.
  std::vector<Term> QuantifierWitnesses(std::uint32_t stmt, Term actor, const SymState& pre,
                                        const ThreadCount& count, std::vector<Term>& facts);

  // Whether k is one of the program's threads.
  Term InRange(Term k, const ThreadCount& count);
  // Values of the declared types, locations of each thread's template, no thread failed.
  Term WellFormed(const SymState& state, const ThreadCount& count);
  Term Initial(const SymState& state, const ThreadCount& count);
  Term SameState(const SymState& a, const SymState& b);

  // Rank counts (ordered ids) are stated at the levels (values of their parameter) a query names,
  // not at every level: quantified over all of them, satisfiable queries leave the solver a
  // function of the level to find, which it does not. At `level`, in `state`: each tracked rank
  // count lies in 0..n, counts some thread (a witness, with `witness`) where it is positive, and
  // counts at least those of `threads` (up to two distinct ones) it holds for, and leaves out at
  // least those it does not hold for.
  bool TracksRanks() const { return !rank_counts_.empty(); }
  // The levels at which `thread`'s term of a tracked rank count can change: the values in `state`
  // of what its body compares the parameter with (`level[i]` in `level[i] > j`).
  std::vector<Term> RankThresholds(const SymState& state, const ThreadCount& count, Term thread);
  Term RankFacts(const SymState& state, const ThreadCount& count, Term level,
                 const std::vector<Term>& threads, bool witness);
  // In an initial state: all threads or none.
  Term RankInitial(const SymState& state, const ThreadCount& count, Term level);
  // Over a step of statement `stmt` by `actor` from `pre` to `post`: each count changes by the
  // actor's change (unless the statement writes another thread's entry the count reads), and in
  // `pre` the count one level below exceeds the count at `level` by at least the threads of
  // `threads` (up to two distinct ones) counted there and not at `level`.
  Term RankStep(std::uint32_t stmt, Term actor, const SymState& pre, const SymState& post,
                const ThreadCount& count, Term level, const std::vector<Term>& threads);
  // Rank count k at `level` over the threads below both n and `threads`: the sum of their terms.
  Term RankSum(const SymState& state, const ThreadCount& count, std::size_t k,
               std::uint32_t threads, Term level);
  // With at most `most` threads: each count at `level` is that sum (a model of few threads then
  // has its counts right, where witnesses alone bound them by 2 and n - 2).
  Term RankExact(const SymState& state, const ThreadCount& count, std::uint32_t most, Term level);

  // A predicate in `state` from the point of view of thread `self`: false where its evaluation
  // fails (a division by zero or an index out of range in any subexpression), as
  // IntModel::Holds. Throws InputError for a `count` that a symbolic thread count cannot encode.
  Term Eval(const Expr& expr, const SymState& state, const ThreadCount& count, Term self);

  // An integer expression's value in `state` from thread `self`'s view, whatever it is where its
  // evaluation fails (a thread it names, for a query to instantiate an invariant at).
  Term Value(const Expr& expr, const SymState& state, const ThreadCount& count, Term self);

  // Statement `stmt` executed by thread `actor`: from `pre` (its pc at the statement) to `post`.
  Term Step(std::uint32_t stmt, Term actor, const SymState& pre, const SymState& post,
            const ThreadCount& count);
  // Whether the statement has a successor for `actor` in `pre`.
  Term Enabled(std::uint32_t stmt, Term actor, const SymState& pre, const ThreadCount& count);

 private:
  struct Env {
    std::vector<Term> shared;
    std::vector<Term> locals;
    std::vector<Term> pairs;
  };
  // per_column(j) for every thread j: expanded for a fixed count, quantified otherwise.
  template <class PerColumn>
  Term EveryColumn(const ThreadCount& count, PerColumn&& per_column);
  // The thread an index names (of another thread's location or entry, of a per-pair entry): its
  // range error, unless a quantified thread, to `errors`.
  Term IndexedThread(const Expr& index, const SymState& state, const ThreadCount& count, Term self,
                     std::vector<Term>& slots, std::vector<Term>* errors);
  struct Frame {
    const std::vector<Instr>* block;
    std::size_t index;
  };
  struct Ctx {
    std::uint32_t stmt;
    Term actor;
    const SymState* pre;
    const SymState* post;  // null: encode enabledness only
    const ThreadCount* count;
  };

  Term Exec(const Ctx& ctx, std::vector<Frame> frames, const Env& env);
  // `x := *` of `target`: a fresh value (the Boolean `v == 1` for a Boolean), its name added to
  // `chosen` and its type's range to `ranges`.
  Term Choose(const Instr::Target& target, std::vector<Term>& chosen, std::vector<Term>& ranges);
  // `rest` with the chosen values in their ranges: free in a step's relation, bound by an
  // existential where only enabledness is asked (it is then under a negation).
  Term BindChosen(const Ctx& ctx, const std::vector<Term>& chosen, const std::vector<Term>& ranges,
                  Term rest);
  // An assignment's right-hand sides (every one read in `now`, the values it chooses fresh).
  std::vector<Term> Values(const Ctx& ctx, const Instr& op, const SymState& now,
                           std::vector<Term>& slots, std::vector<Term>& errors,
                           std::vector<Term>& chosen, std::vector<Term>& ranges);
  // The state after its writes (a nat below zero, an index out of range: into `errors`).
  Env Writes(const Ctx& ctx, const Instr& op, const std::vector<Term>& values, const SymState& now,
             const Env& env, std::vector<Term>& slots, std::vector<Term>& errors);
  // The state after `forall j: a[j] := e, ...` (a fixed count: a store for every thread).
  Env WritesEach(const Ctx& ctx, const Instr& op, const SymState& now, const Env& env,
                 std::vector<Term>& slots, std::vector<Term>& errors);
  // An index outside 0..size-1.
  Term OutOfRange(Term index, std::uint32_t size);
  // `target` with its index evaluated: an element of a fixed-size array, or another thread's
  // entry of a per-thread array; the index's range error goes to `errors`.
  void WriteAt(const Instr::Target& target, Term index, Term value, const Ctx& ctx, const Env& env,
               Env& next, std::vector<Term>& errors);
  Term Finish(const Ctx& ctx, const Env& env, Term target);
  Term EvalIn(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
              std::vector<Term>& slots, std::vector<Term>* errors);
  Term ApplyBinary(Expr::Op op, Term a, Term b, std::vector<Term>* errors);
  // count(...) OP k with the thread count left symbolic.
  Term CompareCount(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                    std::vector<Term>& slots, std::vector<Term>* errors);
  // forall, exists and count over a fixed number of threads: one term per thread.
  Term ExpandQuantifier(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                        std::vector<Term>& slots, std::vector<Term>* errors);
  // forall and exists over a symbolic number of threads: a solver quantifier.
  Term QuantifySymbolically(const Expr& e, const SymState& state, const ThreadCount& count,
                            Term self, std::vector<Term>& slots, std::vector<Term>* errors);
  Term AtLeast(const Expr& e, const Int& k, const SymState& state, const ThreadCount& count,
               Term self, std::vector<Term>& slots);
  // In a statement: "the body of quantifier `e` fails for some thread in its range".
  void QuantifiedErrors(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                        std::vector<Term>& slots, std::vector<Term>* errors);
  // per_thread(i, template) for every thread i: expanded for a fixed count, quantified
  // otherwise (symbolic counts have one template).
  template <class PerThread>
  Term EveryThread(const ThreadCount& count, PerThread&& per_thread);
  Term PcRange(Term pc, std::uint32_t template_index);
  std::uint32_t TemplateOfThread(std::uint32_t thread) const;

  // Whether thread `thread` is counted by tracked rank count k at parameter `level`.
  Term Ranked(std::size_t k, const SymState& state, const ThreadCount& count, Term thread,
              Term level);
  // Count value c of the threads `holds` holds for: in 0..n, and at least m threads counted (not
  // counted) exactly when m distinct threads witness it.
  Term CountRange(Term c, const ThreadCount& count, const std::function<Term(Term)>& holds);
  // At least as many counted by c as there are distinct threads among `threads` (up to two)
  // that `holds` holds for: ground facts, where a quantified lower bound would meet every pair
  // of the query's threads (and make the solver slow).
  Term AtLeastNamed(Term c, const ThreadCount& count, const std::vector<Term>& threads,
                    const std::function<Term(Term)>& holds);
  // CountRange of every tracked count of `state`, to `parts`, and for two counts read together
  // (`c == count(i: pc[i] == b) + 2 * count(i: pc[i] == d)`), the threads they split four ways:
  // counted by both, by one, by the other, by neither, each a number in 0..n that is positive
  // exactly when a thread witnesses it, the four adding up to n. The initial states' counts (all
  // threads or none) likewise.
  void CountFacts(const SymState& state, const ThreadCount& count, std::vector<Term>& parts);
  void InitialCounts(const SymState& state, const ThreadCount& count, std::vector<Term>& parts);
  // A count used as a value with the thread count symbolic (TrackCounts).
  Term CountValue(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                  std::vector<Term>& slots, std::vector<Term>* errors);
  // The tracked counts of `now`, which differs from `pre` in thread `actor`'s entries only.
  std::vector<Term> CountsAfter(const SymState& pre, const SymState& now, Term actor,
                                const ThreadCount& count);
  // At least m distinct threads in range for which `holds` holds.
  Term Witnesses(const ThreadCount& count, std::uint32_t m, const std::function<Term(Term)>& holds);

  const Program& program_;
  Solver& s_;
  bool pointwise_posts_ = false;
  std::uint32_t count_witnesses_ = 2;
  // Adds the counts of one expression or statement (`here`) to the tracked ones, and each two of
  // them to the pairs whose threads well-formed states split four ways (CountFacts).
  void Track(const std::vector<const Expr*>& here);
  std::vector<const Expr*> counts_;  // the tracked counts, one of each (drb::SameCount)
  // The tracked counts read together (indices into counts_, the smaller first).
  std::vector<std::pair<std::size_t, std::size_t>> count_pairs_;
  std::vector<const Expr*> rank_counts_;  // the tracked rank counts, one of each
};

}  // namespace druba::predabs
