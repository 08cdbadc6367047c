// The explicit-state semantics of a `.drb` program with a fixed number of threads, as an
// ExplorableModel (explore/explorer.h).
//
// A state is a word vector: the shared variables, then per thread its location (pc), its
// locals, and its row of each per-pair array (a[t][0..n-1]). Integers are unbounded: a word holds a
// value in [-2^30, 2^30) directly (the fast path, low bit 0; values of magnitude below 2^30) or,
// low bit 1, the index of an interned big integer (Boost.Multiprecision). A value needs fewer than
// kMaxValueBits bits: a program whose values grow past that (`x := x * x` in a loop doubles their
// size at every step) ends the run as `unknown` (with SetLimits; without, ForEachSuccessor throws
// ValueOverflow) instead of computing for ever.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "common/resources.h"
#include "explore/model.h"
#include "explore/portable.h"
#include "explore/state_store.h"
#include "interp/program.h"

namespace druba::predabs {

inline constexpr unsigned kMaxValueBits = 4096;

// A value of kMaxValueBits bits or more was to be stored.
struct ValueOverflow : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ValueTable {
 public:
  // Throws ValueOverflow for a value of kMaxValueBits bits or more.
  Word Encode(const Int& value);
  Int Decode(Word word) const {
    if ((word & 1U) == 0) return Int(static_cast<std::int32_t>(word) >> 1);
    return bigs_[word >> 1];
  }
  std::size_t num_big() const { return bigs_.size(); }

 private:
  std::vector<Int> bigs_;
  absl::flat_hash_map<std::string, Word> index_;
};

// Why a thread went to the error location.
enum class Failure : std::uint8_t {
  kNone,
  kAssert,
  kUnsafe,
  kDivisionByZero,
  kNegativeNat,
  kBadIndex,
  kOutOfRange  // a write outside a ranged int's bounds (`int[lo, hi]`)
};

// "the assertion fails", "division by zero", ... (empty for kNone).
const char* FailureText(Failure failure);

// Why the explicit search proves nothing by exhausting `program`'s states: "`x := *` (file:4:8)
// may choose any integer, and the search takes 12 of them"; "" when it chooses none.
std::string SampledNote(const Program& program, std::size_t samples);

// The values `x := *` of an int takes in the explicit search (of a nat, those >= 0): -1 to 2, and
// each literal of the program with its neighbours (a branch on `x == 37` is taken both ways), the
// smallest first, at most 12.
std::vector<Int> SampleValues(const Program& program);

class IntModel {
 public:
  IntModel(const Program& program, std::uint32_t num_threads);

  // ExplorableModel.
  std::uint32_t num_threads() const { return n_; }
  std::size_t state_width() const { return width_; }
  template <class F>
  void ForEachInitial(F&& yield) {
    yield(StateView(initial_));
  }
  template <class F>
  void ForEachSuccessor(StateView state, std::uint32_t thread, F&& yield) {
    Successors(state, thread, successors_);
    for (std::size_t i = 0; i < successors_.actions.size(); ++i) {
      yield(successors_.actions[i], StateView(successors_.words.data() + i * width_, width_));
    }
  }

  // A value past kMaxValueBits stops `limits` (the run ends `unknown`) and the step that made it
  // yields no successor; without limits, ForEachSuccessor throws ValueOverflow.
  void SetLimits(LimitWatch* limits) { limits_ = limits; }

  const Program& program() const { return program_; }
  // The values the search takes for `x := *` of an int (empty: the program chooses none).
  const std::vector<Int>& samples() const { return samples_; }
  ValueTable& values() { return values_; }
  const ValueTable& values() const { return values_; }

  // Layout.
  std::size_t PcSlot(std::uint32_t thread) const { return base_ + std::size_t{thread} * stride_; }
  std::size_t LocalSlot(std::uint32_t thread, std::uint32_t var) const {
    return PcSlot(thread) + 1 + var;
  }
  // Entry a[row][column] of per-pair array `pair`.
  std::size_t PairSlot(std::uint32_t row, std::uint32_t pair, std::uint32_t column) const {
    return PcSlot(row) + 1 + program_.locals.size() + std::size_t{pair} * n_ + column;
  }
  std::uint32_t TemplateOf(std::uint32_t thread) const { return template_of_[thread]; }

  // A predicate in `state` from the point of view of thread `self`: false where its evaluation
  // fails (a division by zero or an index out of range in any subexpression, every one evaluated),
  // as the solver encoding (Encoder::Eval) and the certificate checker read it. Never throws a
  // runtime failure.
  bool Holds(const Expr& expr, StateView state, std::uint32_t self) const;
  bool AnyThreadFailed(StateView state) const;
  // Whether `thread` has an enabled statement in `state` (a busy wait whose condition holds is
  // one). Safe to call while a successor enumeration is under way.
  bool CanMove(StateView state, std::uint32_t thread);
  // Whether `thread` has finished: it reached `end` (or failed), or it is at a statement whose
  // label starts with "end", a place where it may rest forever (as in Promela).
  bool Finished(StateView state, std::uint32_t thread) const;
  // No thread can move and some thread has not finished (--deadlock, `check deadlock;`).
  bool Deadlocked(StateView state);
  // Whether some variable holds a value of magnitude above `bound`.
  bool HasValueBeyond(StateView state, std::int64_t bound) const;
  // Raises largest[v] to the magnitude of each shared variable v's value in `state`, and
  // largest[shared + v] to that of local v's at any thread (an interned value counts as 2^30).
  // `largest` has a place for every shared and local variable.
  void RaiseLargest(StateView state, std::vector<std::uint64_t>& largest) const;
  // Why `thread`'s statement `action` led from `before` to the error location.
  Failure FailureOf(StateView before, std::uint32_t thread, std::uint32_t action);

  // "m=1 s=0 | T0: pc=2 l=0 | T1: ..."
  std::string DescribeState(StateView state) const;

  // DistributableModel: each word as a varint (explore/portable.h), but an interned value as its
  // decimal digits (length * 2 + 1, then the text); Decode interns it in this model's table.
  void Encode(StateView state, std::vector<std::uint8_t>& out) const;
  bool Decode(std::span<const std::uint8_t> bytes, std::vector<Word>& words);
  std::string DescribeAction(std::uint32_t thread, std::uint32_t action) const;
  std::string DescribeChanges(StateView before, StateView after) const;

 private:
  struct SuccessorBuffer {
    std::vector<std::uint32_t> actions;
    std::vector<Word> words;
  };
  struct Env;

  void Successors(StateView state, std::uint32_t thread, SuccessorBuffer& out);
  void Run(const std::vector<Instr>& ops, std::size_t at, Env& env, std::uint32_t action,
           SuccessorBuffer& out);
  // One assignment of a statement: every right-hand side first, then the writes (throws a
  // runtime failure, with nothing written, when a nat would become negative).
  // `chosen` gives the values of the right-hand sides that are `*`, in their order.
  void Assign(const Instr& op, Env& env, std::vector<Int>& slots,
              const std::vector<Int>& chosen = {});
  // `forall j: a[j] := e, ...`: every thread's values from the state before, then the writes.
  void AssignEach(const Instr& op, Env& env, std::vector<Int>& slots);
  // An assignment with `*` on the right: every combination of sampled values, each continuing
  // the statement on a copy of `env` (the frame to return to is on env.frames).
  void AssignEachChoice(const Instr& op, Env& env, std::vector<Int>& slots, std::uint32_t action,
                        SuccessorBuffer& out);
  // An expression's value; throws the file's runtime failure for an error in any subexpression.
  Int Eval(const Expr& expr, StateView state, std::uint32_t self) const;
  Int EvalIn(const Expr& expr, StateView state, std::uint32_t self, std::vector<Int>& slots) const;
  // forall, exists and count over the threads (every body evaluated).
  Int EvalQuantifier(const Expr& e, StateView state, std::uint32_t self,
                     std::vector<Int>& slots) const;
  std::string ValueText(const Variable& var, Word word) const;

  const Program& program_;
  std::uint32_t n_;
  std::size_t base_;
  std::size_t stride_;
  std::size_t width_;
  std::vector<std::uint32_t> template_of_;
  std::vector<Word> initial_;
  // The values the explicit search takes for `x := *` of an int (of a nat, those >= 0): small
  // numbers and the program's literals with their neighbours (Program::chooses_at).
  std::vector<Int> samples_;
  ValueTable values_;
  SuccessorBuffer successors_;
  Failure last_failure_ = Failure::kNone;
  LimitWatch* limits_ = nullptr;
};

static_assert(ExplorableModel<IntModel>);
static_assert(DistributableModel<IntModel>);

}  // namespace druba::predabs
