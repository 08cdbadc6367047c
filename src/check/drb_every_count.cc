#include "check/drb_every_count.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <z3++.h>

#include "check/drb_steps.h"
#include "check/every_count_encoding.h"
#include "check/skolemize.h"
#include "drb/ordered.h"

namespace druba::check {
namespace {

using drb::Program;
using every_count::State;
using every_count::Symbolic;
using every_count::Unsupported;

// The closure of an invariant (one abstract state, every predicate true) over ordered ids, asked
// ground: the invariant only at the threads a step names (the mover t, the viewer, a witness w of
// the predicate it breaks, the witnesses of what the step's guard says exists, the values of
// their locals and of the shared variables), each `forall j` predicate at those threads only.
// Weaker than the invariant, so an unsatisfiable query is one with it; a solver of its own,
// without the quantified view of t.
class GroundClosure {
 public:
  GroundClosure(Symbolic& sym, const drb::AbstractionSpec& spec, const std::vector<Abstract>& set,
                bool ordered, const State& s, const z3::expr& t, const z3::expr& view,
                std::uint32_t min_threads)
      : sym_(sym), spec_(spec), s_(s), t_(t), view_(view), w_(sym.Thread("w")), base_(t.ctx()) {
    applies_ = ordered && spec.pcs.empty() && set.size() == 1 &&
               std::all_of(set[0].begin(), set[0].end(), [](auto v) { return v == 1; });
    base_.add(sym.n() >= static_cast<int>(min_threads));
    base_.add(sym.InRange(view) && sym.InRange(t) && sym.WellFormed(s));
    at_ = {t, view, w_};
    for (const z3::expr& v : s.shared) at_.push_back(v);
    for (const z3::expr& v : s.locals) {
      at_.push_back(z3::select(v, t));
      at_.push_back(z3::select(v, view));
    }
    if (sym.TracksRanks()) {  // and the entries t reads at an index it holds (`victim[lv]`)
      for (const z3::expr& v : s.locals) {
        for (const z3::expr& index : s.locals) at_.push_back(z3::select(v, z3::select(index, t)));
      }
    }
  }

  // Whether the set is an invariant (one abstract state, every predicate true) over ordered ids.
  bool applies() const { return applies_; }
  // Whether no step of `stmt` by t from such a state fails or leaves the invariant at the viewer.
  bool Excludes(std::uint32_t stmt, unsigned timeout_ms, LimitWatch* limits) {
    z3::context& ctx = t_.ctx();
    z3::expr_vector escapes(ctx);
    for (const auto& o : sym_.Execute(t_, stmt, s_)) {
      escapes.push_back(o.guard &&
                        (o.failed ? ctx.bool_val(true) : sym_.FalseAt(spec_, o.post, view_, w_)));
    }
    std::vector<z3::expr> fresh;
    const z3::expr escape = Skolemize(z3::mk_or(escapes).simplify(), true, fresh);
    std::vector<z3::expr> at = at_;
    for (const z3::expr& f : fresh) {
      if (f.is_int()) at.push_back(f);
    }
    z3::expr_vector holds(ctx);
    for (const z3::expr& x : at) {
      holds.push_back(z3::implies(sym_.InRange(x), sym_.TrueAt(spec_, s_, x, at)));
    }
    if (sym_.TracksRanks()) holds.push_back(Ranks(at));
    const z3::expr query =
        z3::select(s_.pc, t_) == static_cast<int>(stmt) && escape && z3::mk_and(holds);
    return DecideAlone(base_, query, timeout_ms, limits, /*ground=*/true) == z3::unsat;
  }

 private:
  // With rank counts: the counts' facts (Symbolic::RankFacts) at the levels `at` names and one
  // below each, and the predicates over every thread j (those that name no viewer) at the levels
  // below too (TrueAt has them at `at`). A step's post state counts exactly (Recount).
  z3::expr Ranks(const std::vector<z3::expr>& at) {
    z3::expr_vector all(t_.ctx());
    std::vector<z3::expr> witnesses;
    for (const z3::expr& x : at) {
      all.push_back(sym_.RankFacts(s_, x, at, witnesses));
      all.push_back(sym_.RankFacts(s_, x - 1, at, witnesses));
      for (const auto& pred : spec_.predicates) {
        if (pred.expr->kind != drb::Expr::Kind::kForall || drb::NamesSelf(*pred.expr)) continue;
        all.push_back(z3::implies(sym_.InRange(x - 1), sym_.Body(*pred.expr, s_, view_, x - 1)));
      }
    }
    return z3::mk_and(all);
  }

  Symbolic& sym_;
  const drb::AbstractionSpec& spec_;
  const State& s_;
  z3::expr t_, view_, w_;
  z3::solver base_;
  std::vector<z3::expr> at_;
  bool applies_ = false;
};

// Why this checker cannot state the program for every count, or "".
std::string Unstated(const Program& program, const drb::AbstractionSpec& spec, bool ordered) {
  if (ordered && program.templates.size() != 1)
    return "the program has more than one thread template";
  if (program.updates_every_at.line != 0) {
    return fmt::format(
        "line {} updates every thread's entry in one step, which is stated at one "
        "thread count only",
        program.updates_every_at.line);
  }
  if (!program.pairs.empty() && !ordered) {
    return "a per-pair array is stated for every thread count with ordered ids only";
  }
  if (!ordered && (!program.symmetric || !spec.symmetric)) {
    return "the program or abstraction is not symmetric";
  }
  return {};
}

std::string CountsText(std::uint32_t min_threads, bool ordered) {
  return fmt::format("every count >= {}{}", min_threads, ordered ? ", ids ordered" : "");
}

}  // namespace

CheckResult CheckEveryCount(CheckResult r, const Program& program, const drb::AbstractionSpec& spec,
                            const std::vector<Abstract>& set, std::uint32_t min_threads,
                            bool ordered, unsigned timeout_ms, LimitWatch* limits) {
  const std::string counts = CountsText(min_threads, ordered);
  if (const std::string why = Unstated(program, spec, ordered); !why.empty()) {
    return Invalid(std::move(r), "unsupported", why);
  }
  z3::context ctx;
  z3::solver solver(ctx);
  Symbolic sym(program, spec, ctx, ordered);
  z3::expr_vector threads(ctx);  // at least min_threads of them
  for (std::uint32_t k = 0; k < min_threads && !ordered; ++k) threads.push_back(sym.Thread("d"));
  if (threads.size() > 1) solver.add(z3::distinct(threads));
  solver.add(sym.n() >= static_cast<int>(min_threads));
  std::optional<unsigned> timeout_set;
  const auto decide = [&](const z3::expr& query) {
    return ordered ? DecideAlone(solver, query, timeout_ms, limits)
                   : DecideWithin(solver, query, timeout_ms, limits, timeout_set);
  };
  try {
    const z3::expr view = sym.Thread("z");
    solver.add(sym.InRange(view));
    if (const auto result = decide(!InSet(ctx, sym.Alpha(spec, sym.Initial(), view), set));
        result != z3::unsat) {
      return Invalid(std::move(r), "initial",
                     result == z3::sat ? "the initial state's view is not in the set at some count"
                                       : "the solver could not decide it");
    }
    r.passed.push_back("initial (" + counts + ")");
    const State s = sym.Fresh("s_");
    const z3::expr k = sym.Thread("k");
    const z3::expr t = sym.Thread("t");
    // Every thread's view in S, quantified; a query is first asked with t's view (weaker: unsat
    // there is unsat with all) or ground (GroundClosure), then with every view (and 2 witnesses).
    solver.add(sym.InRange(t) && sym.WellFormed(s) && InSet(ctx, sym.Alpha(spec, s, t), set));
    const z3::expr every_view =
        sym.Forall(k, InSet(ctx, sym.Alpha(spec, s, k), set)) && sym.Witnessed(s, 2);
    const std::vector<z3::expr> alpha = sym.Alpha(spec, s, view);
    GroundClosure ground(sym, spec, set, ordered, s, t, view, min_threads);
    const auto& tt = program.templates[0];
    std::uint64_t queries = 0;
    for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
      z3::expr_vector escapes(ctx);
      for (const auto& o : sym.Execute(t, stmt, s)) {
        escapes.push_back(o.guard && (o.failed ? ctx.bool_val(true)
                                               : !InSet(ctx, sym.Alpha(spec, o.post, view), set)));
      }
      for (const Abstract& a : set) {
        z3::expr_vector here(ctx);
        for (std::size_t i = 0; i < a.size(); ++i)
          here.push_back(alpha[i] == static_cast<int>(a[i]));
        ++queries;
        const z3::expr query =
            z3::mk_and(here) && z3::select(s.pc, t) == static_cast<int>(stmt) && z3::mk_or(escapes);
        const bool excluded = ground.applies() ? ground.Excludes(stmt, timeout_ms, limits)
                                               : decide(query) == z3::unsat;
        if (excluded) continue;
        ++queries;
        const auto result = decide(query && every_view);
        if (result == z3::unsat) continue;
        return Invalid(std::move(r), "closure",
                       fmt::format("{} under a thread executing {}: {}", Text(a),
                                   program.statements[stmt].label,
                                   result == z3::sat ? "a successor fails or leaves the set"
                                                     : "the solver could not decide it"));
      }
    }
    r.passed.push_back(fmt::format("property and closure ({}, {} queries)", counts, queries));
  } catch (const Unsupported& u) {
    return Invalid(std::move(r), "unsupported",
                   u.what + " cannot be stated for every thread count by this checker");
  } catch (const CheckStopped& stopped) {
    r.stopped = stopped.reason;
    return r;
  }
  r.valid = true;
  return r;
}

}  // namespace druba::check
