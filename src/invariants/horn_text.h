// Reading a Horn solver's answer back as `.drb` text (invariants/horn.h): an interpretation of a
// relation over integer arguments, each of which stands for a program variable of one thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "interp/program.h"
#include "smt/solver.h"

namespace druba::predabs {

// A relation argument: its `.drb` text (empty: not expressible) and whether it is a Boolean.
struct HornArg {
  std::string text;
  bool boolean = false;
};

// Reads the solver's invariants back as `.drb` text.
class HornText {
 public:
  using Term = Solver::Term;

  HornText(Solver& s, absl::flat_hash_map<std::string, HornArg> args)
      : s_(s), args_(std::move(args)) {}

  // The atoms of `formula` (comparisons of integers), each added once, in one form per split of
  // the states (Comparison).
  void Atoms(Term formula, std::vector<std::string>& out, absl::flat_hash_set<std::string>& seen);

  // `formula` as a `.drb` Boolean expression of the same meaning, or nothing when some part has
  // no `.drb` text.
  std::optional<std::string> Formula(Term formula);

 private:
  bool IsBoolean(Term t);

  // The Boolean program variables `t` names.
  void BooleansIn(Term t, std::vector<std::string>& out);

  // An integer comparison as `.drb` text. `.drb` Booleans are not integers: a comparison that
  // involves some (at most 2) is read per value of theirs. Split: each case's comparison alone,
  // in one form per split of the states (an atom of a candidate); otherwise one text per case
  // that holds it up to its exact meaning (`b && x <= 1`), or nothing when a part has no text.
  std::vector<std::string> Comparison(Term t, bool split);

  // sum of coefficient * variable (by `.drb` text, in text order) plus a constant.
  struct Sum {
    std::map<std::string, Int> terms;
    Int constant = 0;
  };
  std::optional<Sum> SumOf(Term t);
  // to += factor * from.
  static void Add(Sum& to, const Sum& from, const Int& factor);
  // A product with at most one factor that has variables (none: a nonlinear one).
  static std::optional<Sum> ProductOf(const std::vector<Sum>& args);

  // A linear comparison `lhs OP rhs` (OP <=, < or ==) as `.drb` text: `sum <= bound` with the
  // coefficients divided by their gcd, `<` as `<=` (integers), positive terms on the left;
  // "true" or "false" when no variable is left. `split`: the first coefficient made positive,
  // for `<=` by taking the negation, which splits the states alike (one text per atom).
  std::optional<std::string> Linear(Term t, bool split);

  Solver& s_;
  absl::flat_hash_map<std::string, HornArg> args_;  // by the solver's variable name
  absl::flat_hash_map<std::string, std::string> fixed_;
};

}  // namespace druba::predabs
