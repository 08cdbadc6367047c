#include "check/drb_invariant.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "check/drb_fixed.h"
#include "check/thread_count.h"
#include "common/diagnostics.h"

namespace druba::check {
namespace {

using Tuple = std::vector<std::uint32_t>;

// The listed tuples, each read strictly: one location per thread, each a statement of the
// thread's template or its end (never `error`: a covered state has no failed thread).
std::vector<Tuple> ReadTuples(const JsonValue& doc, const drb::Program& program, std::uint32_t n,
                              std::size_t formulas) {
  std::vector<std::uint32_t> template_of;
  for (std::uint32_t k = 0; k < program.templates.size(); ++k) {
    const std::uint32_t count = program.templates.size() == 1 ? n : program.templates[k].count;
    template_of.insert(template_of.end(), count, k);
  }
  const JsonValue& rows = doc.At("locations");
  if (rows.Items().size() != formulas) {
    throw InputError(rows.where, fmt::format("{} location tuples for {} formulas: one formula "
                                             "(predicate at0, at1, ...) per tuple",
                                             rows.Items().size(), formulas));
  }
  std::vector<Tuple> out;
  for (const JsonValue& row : rows.Items()) {
    const std::span<const std::int64_t> pcs = row.Integers();
    if (pcs.size() != n) {
      throw InputError(row.where, fmt::format("a location tuple has one location for each of "
                                              "the {} threads",
                                              n));
    }
    Tuple t;
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto& tt = program.templates[template_of[i]];
      if (pcs[i] != tt.end_pc && (pcs[i] < tt.first || pcs[i] >= tt.first + tt.size)) {
        throw InputError(row.where,
                         fmt::format("thread {}'s location {} is not one of its template's "
                                     "({}..{}, or {} at its end)",
                                     i, pcs[i], tt.first, tt.first + tt.size - 1, tt.end_pc));
      }
      t.push_back(static_cast<std::uint32_t>(pcs[i]));
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The solver queries of the check: each must be unsatisfiable.
class InvariantQueries {
 public:
  InvariantQueries(const drb::Program& program, std::vector<Tuple> tuples, std::uint32_t n,
                   unsigned timeout_ms, LimitWatch* limits)
      : p_(program),
        spec_(program.abstractions.back()),
        tuples_(std::move(tuples)),
        timeout_ms_(timeout_ms),
        limits_(limits),
        enc_(program, n, ctx_) {}

  std::string Initial() {
    const Sym s0 = enc_.Fresh("i_");
    return Why(Decide(enc_.Initial(s0) && !Covered(s0)), "the initial state is not covered");
  }

  // Every step from tuple k's covered states; counts the queries.
  std::string Steps(std::size_t k, std::uint64_t* queries) {
    const Tuple& at = tuples_[k];
    for (std::uint32_t t = 0; t < enc_.n(); ++t) {
      if (at[t] >= p_.statements.size()) continue;  // finished
      const Sym s = enc_.Fresh(fmt::format("s{}_{}_", k, t));
      z3::expr_vector escapes(ctx_);
      for (const auto& o : enc_.Execute(t, at[t], s)) {
        escapes.push_back(o.guard && (o.failed ? ctx_.bool_val(true) : !Covered(o.post, &at, t)));
      }
      ++*queries;
      std::string why = Why(Decide(Here(k, s) && z3::mk_or(escapes)),
                            fmt::format("tuple {}: a step of thread {} executing {} fails "
                                        "or leaves the covered states",
                                        k, t, p_.statements[at[t]].label));
      if (!why.empty()) return why;
    }
    return "";
  }

  // No covered state of tuple k is a deadlock: every thread blocked (no path of its statement
  // enabled, failing ones included) and one at a statement not labelled end...
  std::string Deadlock(std::size_t k, std::uint64_t* queries) {
    const Tuple& at = tuples_[k];
    bool finished = true;
    const Sym s = enc_.Fresh(fmt::format("d{}_", k));
    z3::expr_vector blocked(ctx_);
    for (std::uint32_t t = 0; t < enc_.n(); ++t) {
      if (at[t] >= p_.statements.size()) continue;
      if (!p_.statements[at[t]].label.starts_with("end")) finished = false;
      blocked.push_back(!enc_.AnyMove(enc_.Execute(t, at[t], s)));
    }
    if (finished) return "";
    ++*queries;
    return Why(Decide(Here(k, s) && z3::mk_and(blocked)),
               fmt::format("tuple {} admits a deadlocked state", k));
  }

  std::size_t size() const { return tuples_.size(); }

 private:
  static std::string Why(z3::check_result r, const std::string& what) {
    if (r == z3::unsat) return "";
    return r == z3::sat ? what : what + ": the solver could not decide it";
  }

  z3::expr AtTuple(const Sym& s, const Tuple& at) {
    z3::expr_vector same(ctx_);
    for (std::uint32_t t = 0; t < at.size(); ++t)
      same.push_back(s.pc[t] == static_cast<int>(at[t]));
    return z3::mk_and(same);
  }
  // s is at tuple k (well-formed) and satisfies its formula.
  z3::expr Here(std::size_t k, const Sym& s) {
    return enc_.WellFormed(s) && AtTuple(s, tuples_[k]) && Holds(k, s);
  }
  // s is at a listed tuple and satisfies its formula. With `from`: only the tuples that agree
  // with it but at thread `mover` (a step moves only its own thread; the others' disjuncts are
  // false there).
  z3::expr Covered(const Sym& s, const Tuple* from = nullptr, std::uint32_t mover = 0) {
    z3::expr_vector options(ctx_);
    for (std::size_t k = 0; k < tuples_.size(); ++k) {
      bool same = true;
      for (std::uint32_t j = 0; from != nullptr && j < from->size(); ++j) {
        same = same && (j == mover || tuples_[k][j] == (*from)[j]);
      }
      if (same) options.push_back(AtTuple(s, tuples_[k]) && Holds(k, s));
    }
    return z3::mk_or(options);
  }

  // Formula k holds in s (thread 0's view; false where its evaluation fails).
  z3::expr Holds(std::size_t k, const Sym& s) {
    std::vector<z3::expr> bound(p_.num_slots + 1, ctx_.int_val(0));
    z3::expr failed = ctx_.bool_val(false);
    const z3::expr value = enc_.Eval(*spec_.predicates[k].expr, s, 0, bound, &failed);
    return value != 0 && !failed;
  }

  z3::check_result Decide(const z3::expr& query) {
    return DecideWithin(solver_, query, timeout_ms_, limits_, timeout_set_);
  }

  const drb::Program& p_;
  const drb::AbstractionSpec& spec_;
  std::vector<Tuple> tuples_;
  unsigned timeout_ms_;
  std::optional<unsigned> timeout_set_;  // on solver_ (DecideWithin)
  LimitWatch* limits_;
  z3::context ctx_;
  z3::solver solver_{ctx_};
  Encoding enc_;
};

}  // namespace

CheckResult CheckDrbInvariantCertificate(const JsonValue& doc, const std::string& digest,
                                         const std::string& source, const std::string& file,
                                         LimitWatch* limits, unsigned timeout_ms) {
  CheckResult r;
  const auto fail = [&](std::string what, std::string example) {
    return Invalid(std::move(r), std::move(what), std::move(example));
  };
  try {
    ExpectSchema(doc, "drb invariant", {"deadlock", "abstraction", "locations"});
    if (doc.At("proof").AsString() != "invariant") {
      throw InputError(doc.At("proof").where, "an invariant certificate's proof is 'invariant'");
    }
    const bool deadlock = doc.At("deadlock").AsBool();
    // The digest before the block is read with the model: against another model the block may
    // name what that model lacks, and its place would be past the model's last line.
    if (doc.At("digest").AsString() != digest) {
      return fail("digest", "the model is not the one certified");
    }
    const drb::Program program = ParseWithBlock(doc.At("abstraction"), source, file);
    const std::uint32_t n = ReadThreadCount(doc.At("threads"), program);
    const drb::AbstractionSpec& spec = program.abstractions.back();
    if (!spec.pcs.empty()) {
      throw InputError(doc.At("abstraction").where,
                       "the invariant's block holds its formulas only (predicate at0: ...;), no "
                       "tracked location");
    }
    std::vector<Tuple> tuples = ReadTuples(doc, program, n, spec.predicates.size());
    r.passed.emplace_back("digest");
    InvariantQueries queries(program, std::move(tuples), n, timeout_ms, limits);
    if (std::string why = queries.Initial(); !why.empty()) return fail("initial", why);
    r.passed.push_back(fmt::format("initial ({} threads)", n));
    std::uint64_t count = 0;
    for (std::size_t k = 0; k < queries.size(); ++k) {
      if (std::string why = queries.Steps(k, &count); !why.empty()) return fail("consecution", why);
    }
    r.passed.emplace_back(fmt::format(
        "consecution and property ({} location tuples, {} queries: no step from a covered "
        "state fails or leaves them)",
        queries.size(), count));
    if (deadlock || program.check_deadlock) {
      count = 0;
      for (std::size_t k = 0; k < queries.size(); ++k) {
        if (std::string why = queries.Deadlock(k, &count); !why.empty()) {
          return fail("deadlock", why);
        }
      }
      r.passed.emplace_back(fmt::format("deadlock ({} queries)", count));
    }
    r.valid = true;
    return r;
  } catch (const CheckStopped& stopped) {
    r.stopped = stopped.reason;
    return r;
  }
}

}  // namespace druba::check
