#include "check/drb_check.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "check/drb_fixed.h"
#include "check/drb_steps.h"
#include "check/thread_count.h"

#include "check/drb_every_count.h"
#include "common/diagnostics.h"
#include "drb/parser.h"

namespace druba::check {
namespace {

using drb::Program;

// S, each state read strictly: a tracked location is one its thread's template has (a statement
// or its end: under view `every_count` thread 0's), a predicate is 0 or 1, the failed bit 0.
std::vector<Abstract> ReadStates(const JsonValue& doc, const Program& program,
                                 const drb::AbstractionSpec& spec, std::uint32_t n) {
  const std::size_t width = spec.pcs.size() + spec.predicates.size();
  std::vector<std::uint32_t> template_of;  // per thread, once (not per row)
  for (std::uint32_t k = 0; k < program.templates.size(); ++k) {
    const std::uint32_t count = program.templates.size() == 1 ? n : program.templates[k].count;
    template_of.insert(template_of.end(), count, k);
  }
  std::vector<Abstract> set;
  for (const JsonValue& row : doc.At("abstract_states").Items()) {
    const std::span<const std::int64_t> bits = row.Integers();
    if (bits.size() != width + 1 || bits.back() != 0) {
      throw InputError(row.where,
                       "an abstract state is the tracked locations, the predicates "
                       "and a failed bit of 0");
    }
    Abstract a;
    for (std::size_t i = 0; i < width; ++i) {
      if (i < spec.pcs.size()) {
        const std::uint32_t t = spec.pcs[i].thread.value_or(0);
        const auto& tt =
            program.templates[t < template_of.size() ? template_of[t] : template_of.back()];
        if (bits[i] != tt.end_pc && (bits[i] < tt.first || bits[i] >= tt.first + tt.size)) {
          throw InputError(row.where,
                           fmt::format("thread {}'s location {} is not one of its "
                                       "template's ({}..{}, or {} at its end)",
                                       t, bits[i], tt.first, tt.first + tt.size - 1, tt.end_pc));
        }
      } else if (bits[i] != 0 && bits[i] != 1) {
        throw InputError(row.where, "a predicate's value is 0 or 1");
      }
      a.push_back(static_cast<std::uint32_t>(bits[i]));
    }
    set.push_back(std::move(a));
  }
  return set;
}

// The solver queries of one check: each must be unsatisfiable.
class Queries {
 public:
  Queries(const Program& program, const drb::AbstractionSpec& spec, std::vector<Abstract> set,
          std::uint32_t n, unsigned timeout_ms, LimitWatch* limits)
      : program_(program),
        spec_(spec),
        set_(std::move(set)),
        timeout_ms_(timeout_ms),
        limits_(limits),
        enc_(program, n, ctx_) {}

  // "" when the initial state's abstraction is in S, else why not.
  std::string Initial() {
    const Sym s0 = enc_.Fresh("i_");
    const z3::check_result r =
        Decide(enc_.Initial(s0) && !InSet(ctx_, Alpha(enc_, spec_, s0, 0), set_));
    if (r == z3::unsat) return "";
    return r == z3::sat ? "the initial state's abstraction is not in the set"
                        : "the solver could not decide it";
  }

  // "" when S is closed (see the header), else the first state and statement that is not; counts
  // the queries in *queries.
  std::string Closure(std::uint64_t* queries) {
    const Sym s = Admitted("s_");
    const std::vector<z3::expr> alpha = Alpha(enc_, spec_, s, 0);
    for (std::uint32_t t = 0; t < enc_.n(); ++t) {
      const auto& tt = program_.templates[enc_.TemplateOf(t)];
      for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
        z3::expr_vector escapes(ctx_);
        for (const auto& o : enc_.Execute(t, stmt, s)) {
          escapes.push_back(
              o.guard &&
              (o.failed ? ctx_.bool_val(true) : !InSet(ctx_, Alpha(enc_, spec_, o.post, 0), set_)));
        }
        for (const Abstract& a : set_) {
          z3::expr_vector here(ctx_);
          for (std::size_t i = 0; i < a.size(); ++i) {
            here.push_back(alpha[i] == static_cast<int>(a[i]));
          }
          ++*queries;
          const z3::check_result r =
              Decide(z3::mk_and(here) && s.pc[t] == static_cast<int>(stmt) && z3::mk_or(escapes));
          if (r == z3::unsat) continue;
          return fmt::format("{} under thread {} executing {}: {}", Text(a), t,
                             program_.statements[stmt].label,
                             r == z3::sat ? "a successor fails or leaves the set"
                                          : "the solver could not decide it");
        }
      }
    }
    return "";
  }

  // "" when no state the invariant admits is a deadlock: every thread blocked (no statement at
  // its location has an enabled path, failing ones included) and some thread at a statement not
  // labelled end...; else the first abstract state that admits one.
  std::string Deadlock(std::uint64_t* queries) {
    const Sym s = Admitted("d_");
    const std::vector<z3::expr> alpha = Alpha(enc_, spec_, s, 0);
    z3::expr_vector blocked(ctx_);
    z3::expr_vector unfinished(ctx_);
    for (std::uint32_t t = 0; t < enc_.n(); ++t) {
      const auto& tt = program_.templates[enc_.TemplateOf(t)];
      for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
        const z3::expr moves = enc_.AnyMove(enc_.Execute(t, stmt, s));
        const z3::expr here = s.pc[t] == static_cast<int>(stmt);
        blocked.push_back(z3::implies(here, !moves));
        if (!program_.statements[stmt].label.starts_with("end")) unfinished.push_back(here);
      }
    }
    const z3::expr deadlock = z3::mk_and(blocked) && z3::mk_or(unfinished);
    for (const Abstract& a : set_) {
      z3::expr_vector here(ctx_);
      for (std::size_t i = 0; i < a.size(); ++i) here.push_back(alpha[i] == static_cast<int>(a[i]));
      ++*queries;
      const z3::check_result r = Decide(z3::mk_and(here) && deadlock);
      if (r == z3::unsat) continue;
      return Text(a) +
             (r == z3::sat ? " admits a deadlocked state" : ": the solver could not decide it");
    }
    return "";
  }

 private:
  // A fresh state that the invariant admits: well-formed, and for a symmetric program and
  // abstraction every other thread's view in S (asserted once; each query fixes thread 0's view).
  Sym Admitted(const std::string& prefix) {
    Sym s = enc_.Fresh(prefix);
    z3::expr_vector pre(ctx_);
    pre.push_back(enc_.WellFormed(s));
    if (program_.symmetric && spec_.symmetric) {
      for (std::uint32_t k = 1; k < enc_.n(); ++k) {
        pre.push_back(InSet(ctx_, Alpha(enc_, spec_, s, k), set_));
      }
    }
    solver_.add(z3::mk_and(pre));
    return s;
  }

  // A query, within its time and the limits: a query the time limit cut short stops the check
  // (CheckStopped), it is not undecided.
  z3::check_result Decide(const z3::expr& query) {
    return DecideWithin(solver_, query, timeout_ms_, limits_, timeout_set_);
  }

  const Program& program_;
  const drb::AbstractionSpec& spec_;
  std::vector<Abstract> set_;
  unsigned timeout_ms_;
  std::optional<unsigned> timeout_set_;  // on solver_ (DecideWithin)
  LimitWatch* limits_;
  z3::context ctx_;
  z3::solver solver_{ctx_};
  Encoding enc_;
};

}  // namespace

CheckResult CheckDrbCertificate(const JsonValue& certificate, const std::string& digest,
                                const std::string& source, const std::string& file,
                                LimitWatch* limits, unsigned timeout_ms) {
  const JsonValue& doc = certificate;
  CheckResult r;
  const auto fail = [&](std::string what, std::string example) {
    return Invalid(std::move(r), std::move(what), std::move(example));
  };
  try {
    ExpectSchema(doc, "drb predicates", {"deadlock", "abstraction", "abstract_states"},
                 {"every_count", "thread_ids"});
    const bool every_count = doc.Has("every_count") && doc.At("every_count").AsBool();
    const bool ordered = doc.Has("thread_ids") && doc.At("thread_ids").AsString() == "ordered";
    if (doc.Has("thread_ids") && (!ordered || !every_count)) {
      throw InputError(doc.At("thread_ids").where,
                       "\"thread_ids\" is \"ordered\", in a certificate for every count");
    }
    const bool deadlock = doc.At("deadlock").AsBool();
    // The digest before the block is read with the model: against another model the block may
    // name what that model lacks, and its place would be past the model's last line.
    if (doc.At("digest").AsString() != digest) {
      return fail("digest", "the model is not the one certified");
    }
    const Program program = ParseWithBlock(doc.At("abstraction"), source, file);
    const std::uint32_t n = ReadThreadCount(doc.At("threads"), program, every_count);
    const drb::AbstractionSpec& spec = program.abstractions.back();
    std::vector<Abstract> set = ReadStates(doc, program, spec, n);
    r.passed.emplace_back("digest");
    if (every_count) {
      // Deadlock freedom is decided at one thread count only: a claim for every count is not
      // checked, so the certificate is not valid.
      if (deadlock || program.check_deadlock) {
        return fail("unsupported",
                    "deadlock freedom for every thread count is not decided by the "
                    "checker (it decides deadlock at one thread count)");
      }
      return CheckEveryCount(std::move(r), program, spec, set, n, ordered, timeout_ms, limits);
    }
    Queries queries(program, spec, std::move(set), n, timeout_ms, limits);
    if (std::string why = queries.Initial(); !why.empty()) return fail("initial", why);
    r.passed.push_back(fmt::format("initial ({} threads)", n));
    r.passed.emplace_back("property (no state of the set has failed)");
    std::uint64_t count = 0;
    if (std::string why = queries.Closure(&count); !why.empty()) return fail("closure", why);
    r.passed.emplace_back(fmt::format("closure ({} queries)", count));
    if (deadlock || program.check_deadlock) {
      count = 0;
      if (std::string why = queries.Deadlock(&count); !why.empty()) return fail("deadlock", why);
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
