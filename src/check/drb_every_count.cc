#include "check/drb_every_count.h"

#include <algorithm>
#include <functional>
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
  GroundClosure(const Program& program, Symbolic& sym, const drb::AbstractionSpec& spec,
                const std::vector<Abstract>& set, bool ordered, const State& s, const z3::expr& t,
                const z3::expr& view, std::uint32_t min_threads)
      : sym_(sym), spec_(spec), s_(s), t_(t), view_(view), w_(sym.Thread("w")), base_(t.ctx()) {
    applies_ = ordered && spec.pcs.empty() && set.size() == 1 &&
               std::all_of(set[0].begin(), set[0].end(), [](auto v) { return v == 1; });
    base_.add(sym.n() >= static_cast<int>(min_threads));
    base_.add(sym.InRange(view) && sym.InRange(t) && sym.WellFormed(s));
    // The values of the variables that name threads (drb::ThreadNamers: those that hold ids or
    // index another thread's entry). A value no term reads a thread's state at adds facts about
    // a thread the query says nothing else of: 39_rand_lock's 12 integers made each query 18
    // threads wide (a quarter of its 1116 predicates at every pair of them). Fewer threads only
    // weaken this query, which the quantified one behind it answers.
    const drb::IdVariables namers = drb::ThreadNamers(program);
    at_ = {t, view, w_};
    for (std::size_t v = 0; v < s.shared.size(); ++v) {
      if (namers.shared[v]) at_.push_back(s.shared[v]);
    }
    for (std::size_t v = 0; v < s.locals.size(); ++v) {
      if (!namers.locals[v]) continue;
      at_.push_back(z3::select(s.locals[v], t));
      at_.push_back(z3::select(s.locals[v], view));
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
  // Asked at once, then, where that is undecided within kGroundWork, split (Split).
  bool Excludes(std::uint32_t stmt, unsigned timeout_ms, LimitWatch* limits) {
    z3::context& ctx = t_.ctx();
    // The ways out, one part per predicate broken (and one for failing), each a disjunction over
    // the statement's outcomes; a quantifier's witnesses named once for all parts.
    std::vector<z3::expr> fresh;
    z3::expr_vector failing(ctx);
    std::vector<z3::expr_vector> breaks(spec_.predicates.size(), z3::expr_vector(ctx));
    for (const auto& o : sym_.Execute(t_, stmt, s_)) {
      const z3::expr guard = Skolemize(o.guard.simplify(), true, fresh);
      if (o.failed) {
        failing.push_back(guard);
        continue;
      }
      for (std::size_t p = 0; p < spec_.predicates.size(); ++p) {
        const z3::expr broken = sym_.FalseAt(*spec_.predicates[p].expr, o.post, view_, w_);
        breaks[p].push_back(guard && Skolemize(broken.simplify(), true, fresh));
      }
    }
    std::vector<z3::expr> parts;
    if (!failing.empty()) parts.push_back(z3::mk_or(failing));
    for (const z3::expr_vector& b : breaks) {
      if (!b.empty()) parts.push_back(z3::mk_or(b));
    }
    if (parts.empty()) return true;
    std::vector<z3::expr> at = at_;
    for (const z3::expr& f : fresh) {
      if (f.is_int()) at.push_back(f);
    }
    z3::expr_vector holds(ctx);
    for (const z3::expr& x : at) {
      holds.push_back(z3::implies(sym_.InRange(x), sym_.TrueAt(spec_, s_, x, at)));
    }
    if (sym_.TracksRanks()) holds.push_back(Ranks(at));
    if (sym_.TracksCounts()) holds.push_back(sym_.CountFacts(s_, at));
    const z3::expr before = z3::select(s_.pc, t_) == static_cast<int>(stmt) && z3::mk_and(holds);
    const z3::check_result at_once = DecideAlone(base_, before && Any(parts, 0, parts.size()),
                                                 timeout_ms, limits, /*ground=*/true, kGroundWork);
    if (at_once != z3::unknown) return at_once == z3::unsat;
    z3::solver split(ctx);
    AddAssertionsOf(base_, split);
    split.add(before);
    return Split(split, parts, 0, parts.size(), timeout_ms, limits);
  }

 private:
  // The solver's work (Z3's rlimit) a statement's query may take at once, without relevancy
  // propagation, before it is asked again with it (Split): about 20 times what the double-lock
  // and rand-lock tasks' take, 2 to 4 s here. Work, not time, so that the queries asked are the
  // same on every run.
  static constexpr unsigned kGroundWork = 40'000'000;

  static z3::expr Any(const std::vector<z3::expr>& parts, std::size_t lo, std::size_t hi) {
    z3::expr_vector any(parts[lo].ctx());
    for (std::size_t k = lo; k < hi; ++k) any.push_back(parts[k]);
    return z3::mk_or(any);
  }

  // Whether none of parts[lo, hi) is satisfiable on `solver`, asked with relevancy propagation:
  // without it, every term's axioms are asserted, and a nonlinear one (Ricart and Agrawala's
  // `k := (k + 1) % count(i: true)`) left `reply` undecided after 60 s, where with it the same
  // query is unsatisfiable in 2 s. A disjunction left undecided within kGroundWork is asked in
  // halves, down to one part, asked within the timeout alone.
  bool Split(z3::solver& solver, const std::vector<z3::expr>& parts, std::size_t lo, std::size_t hi,
             unsigned timeout_ms, LimitWatch* limits) {
    PollLimits(limits);
    const bool last = hi - lo == 1;
    z3::params params(solver.ctx());
    params.set("timeout", QueryTimeoutMs(timeout_ms, limits));
    params.set("ctrl_c", false);
    params.set("rlimit", last ? 0U : kGroundWork);  // 0: none
    solver.set(params);
    solver.push();
    solver.add(Any(parts, lo, hi));
    const z3::check_result result = CheckInterruptibly(solver, limits);
    solver.pop();
    if (result != z3::unknown || last) return result == z3::unsat;
    const std::size_t mid = lo + (hi - lo) / 2;
    return Split(solver, parts, lo, mid, timeout_ms, limits) &&
           Split(solver, parts, mid, hi, timeout_ms, limits);
  }

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

// What the closure's queries share (CheckEveryCount).
struct ClosureQueries {
  const Program& program;
  Symbolic& sym;
  const drb::AbstractionSpec& spec;
  const std::vector<Abstract>& set;
  const State& s;              // a state whose thread t's view is in the set
  const z3::expr& t;           // the mover
  const z3::expr& view;        // the viewer
  const z3::expr& every_view;  // every thread's view in the set, and witnesses
  GroundClosure& ground;
  unsigned timeout_ms;
  LimitWatch* limits;
  const std::function<z3::check_result(const z3::expr&)>& decide;
};

// Whether a step of the template's statements from a state whose views are in the set fails or
// leaves it: "" where none does, else which; counts the queries and those asked quantified.
std::string Closure(const ClosureQueries& q, std::uint64_t& queries, std::uint64_t& quantified) {
  z3::context& ctx = q.s.pc.ctx();
  const std::vector<z3::expr> alpha = q.sym.Alpha(q.spec, q.s, q.view);
  const auto& tt = q.program.templates[0];
  for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
    z3::expr_vector escapes(ctx);
    for (const auto& o : q.sym.Execute(q.t, stmt, q.s)) {
      escapes.push_back(o.guard &&
                        (o.failed ? ctx.bool_val(true)
                                  : !InSet(ctx, q.sym.Alpha(q.spec, o.post, q.view), q.set)));
    }
    for (const Abstract& a : q.set) {
      z3::expr_vector here(ctx);
      for (std::size_t i = 0; i < a.size(); ++i) here.push_back(alpha[i] == static_cast<int>(a[i]));
      ++queries;
      const z3::expr query = z3::mk_and(here) &&
                             z3::select(q.s.pc, q.t) == static_cast<int>(stmt) &&
                             z3::mk_or(escapes);
      const bool excluded = q.ground.applies() ? q.ground.Excludes(stmt, q.timeout_ms, q.limits)
                                               : q.decide(query) == z3::unsat;
      if (excluded) continue;
      ++queries;
      ++quantified;
      const auto result = q.decide(query && q.every_view);
      if (result == z3::unsat) continue;
      return fmt::format("{} under a thread executing {}: {}", Text(a),
                         q.program.statements[stmt].label,
                         result == z3::sat ? "a successor fails or leaves the set"
                                           : "the solver could not decide it");
    }
  }
  return "";
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
  const std::function<z3::check_result(const z3::expr&)> decide = [&](const z3::expr& query) {
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
    GroundClosure ground(program, sym, spec, set, ordered, s, t, view, min_threads);
    std::uint64_t queries = 0;
    std::uint64_t quantified = 0;  // of them, those asked with the invariant quantified
    const std::string broken = Closure(
        {program, sym, spec, set, s, t, view, every_view, ground, timeout_ms, limits, decide},
        queries, quantified);
    if (!broken.empty()) return Invalid(std::move(r), "closure", broken);
    r.passed.push_back(fmt::format("property and closure ({}, {} queries, {} quantified)", counts,
                                   queries, quantified));
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
