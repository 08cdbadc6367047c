#include "invariants/horn.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "common/resources.h"
#include "interp/residues.h"
#include "invariants/horn_text.h"
#include "smt/encoder.h"

namespace druba::predabs {
namespace {

// Where statement `stmt` can send its thread: its next statement, a goto's target, the error
// location.
void GotoTargets(const std::vector<Instr>& block, std::vector<std::uint32_t>& out) {
  for (const Instr& op : block) {
    if (op.kind == Instr::Kind::kGoto) out.push_back(op.label);
    for (const auto& inner : op.blocks) GotoTargets(inner, out);
  }
}

std::vector<std::uint32_t> Targets(const Program& program, std::uint32_t stmt) {
  std::vector<std::uint32_t> out{program.statements[stmt].next};
  GotoTargets(program.statements[stmt].body, out);
  out.push_back(program.error_pc);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

class HornEncoding {
 public:
  // `program` with residue ghosts (`ghosts`, read back as `(x % m)`).
  HornEncoding(const Program& program, const std::vector<ResidueGhost>& ghosts,
               std::uint32_t threads, bool deadlock, HornForm form, Solver& s)
      : p_(program),
        ghosts_(ghosts),
        n_(threads),
        deadlock_(deadlock),
        locations_as_arguments_(form == HornForm::kLocationArguments),
        s_(s),
        enc_(program, s),
        count_(enc_.Fixed(threads)) {
    enc_.SetPointwisePosts(true);
    Forwarding();
    pre_ = Scalars("h");
    post_ = Scalars("g");
  }

  // The location tuples the control flow reaches (locations that only jump passed over);
  // false when there are more than the bound.
  bool Explore() { return Reach(/*forwarded=*/true, tuples_, ids_); }

  // The tuples the control flow reaches from the initial one, with each location that only
  // jumps replaced by where it leads when `forwarded`.
  bool Reach(bool forwarded, std::vector<Tuple>& tuples,
             absl::flat_hash_map<Tuple, std::size_t>& ids) const {
    const auto id = [&](const Tuple& t) {
      if (ids.try_emplace(t, tuples.size()).second) tuples.push_back(t);
    };
    id(forwarded ? Forwarded(Initial()) : Initial());
    for (std::size_t at = 0; at < tuples.size(); ++at) {
      if (tuples.size() > kMaxHornTuples) return false;
      const Tuple here = tuples[at];
      for (std::uint32_t i = 0; i < n_; ++i) {
        if (!IsStatement(here[i])) continue;
        for (const std::uint32_t t : Targets(p_, here[i])) {
          if (t == p_.error_pc) continue;
          Tuple next = here;
          next[i] = forwarded ? forward_[t] : t;
          id(next);
        }
      }
    }
    return tuples.size() <= kMaxHornTuples;
  }

  std::size_t Rules() { return locations_as_arguments_ ? ArgumentRules() : TupleRules(); }

  // The second form: one relation over the locations (as integers) and the variables.
  std::size_t ArgumentRules() {
    std::size_t rules = 0;
    relations_.push_back(s_.HornRelation("reach", n_ + pre_.all.size()));
    std::vector<Term> pre_pcs;
    std::vector<Term> post_pcs;
    for (std::uint32_t i = 0; i < n_; ++i) {
      pre_pcs.push_back(s_.FreshInt(fmt::format("h.pc.{}", i)));
      post_pcs.push_back(s_.FreshInt(fmt::format("g.pc.{}", i)));
    }
    const SymState pre = StateWithPcs(pre_, pre_pcs);
    const SymState post = StateWithPcs(post_, post_pcs);
    const Term here = s_.And({ApplyAll(pre_pcs, pre_), enc_.WellFormed(pre, count_)});
    s_.HornRule(s_.And({enc_.Initial(pre, count_), enc_.WellFormed(pre, count_)}),
                ApplyAll(pre_pcs, pre_));
    ++rules;
    std::vector<Term> stuck{here};
    std::vector<Term> unfinished;
    for (std::uint32_t i = 0; i < n_; ++i) {
      const ThreadTemplate& tt = p_.templates[TemplateOf(i)];
      const Term actor = s_.Num(i);
      for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
        const Term at = s_.Eq(pre_pcs[i], s_.Num(stmt));
        if (deadlock_) {
          stuck.push_back(s_.Implies(at, s_.Not(enc_.Enabled(stmt, actor, pre, count_))));
          if (!p_.statements[stmt].label.starts_with("end")) unfinished.push_back(at);
        }
        for (const std::uint32_t t : Targets(p_, stmt)) {
          const Term step = s_.And(
              {here, enc_.Step(stmt, actor, pre, post, count_), s_.Eq(post_pcs[i], s_.Num(t))});
          const bool added = t == p_.error_pc ? s_.HornRule(step, std::nullopt)
                                              : s_.HornRule(step, ApplyAll(post_pcs, post_));
          rules += added ? 1 : 0;
        }
      }
    }
    if (deadlock_ && !unfinished.empty()) {
      stuck.push_back(s_.Or(unfinished));
      rules += s_.HornRule(s_.And(stuck), std::nullopt) ? 1 : 0;
    }
    return rules;
  }

  // The first form: one relation per location tuple.
  std::size_t TupleRules() {
    std::size_t rules = 0;
    for (std::size_t r = 0; r < tuples_.size(); ++r) {
      relations_.push_back(s_.HornRelation(RelationName(tuples_[r]), pre_.all.size()));
    }
    edges_.assign(tuples_.size(), {});
    const SymState init = State(pre_, Initial());
    s_.HornRule(s_.And({enc_.Initial(init, count_), enc_.WellFormed(init, count_)}),
                Apply(0, pre_));
    ++rules;
    for (std::size_t r = 0; r < tuples_.size(); ++r) {
      const Tuple& here = tuples_[r];
      const SymState pre = State(pre_, here);
      const Term at = s_.And({Apply(r, pre_), enc_.WellFormed(pre, count_)});
      std::vector<Term> stuck;
      bool all_finished = true;  // as IntModel::Finished: at the end, or at a label `end...`
      for (std::uint32_t i = 0; i < n_; ++i) {
        if (!IsStatement(here[i])) continue;
        all_finished = all_finished && p_.statements[here[i]].label.starts_with("end");
        const Term actor = s_.Num(i);
        if (deadlock_) stuck.push_back(s_.Not(enc_.Enabled(here[i], actor, pre, count_)));
        for (const std::uint32_t t : Targets(p_, here[i])) {
          Tuple next = here;
          next[i] = t;
          const SymState post = State(post_, next);
          const Term step = s_.And({at, enc_.Step(here[i], actor, pre, post, count_)});
          if (t == p_.error_pc) {
            rules += s_.HornRule(step, std::nullopt) ? 1 : 0;
          } else if (const std::size_t to = ids_.at(Forwarded(next));
                     s_.HornRule(step, Apply(to, post_))) {
            ++rules;
            edges_[r].push_back(to);
          }
        }
      }
      if (deadlock_ && !all_finished) {
        stuck.push_back(at);
        s_.HornRule(s_.And(stuck), std::nullopt);
        ++rules;
      }
    }
    return rules;
  }

  // After kUnsat: the atoms of every relation's interpretation and, when each has `.drb` text,
  // the invariant (the tuples whose relation is empty left out).
  // The name of each variable of the pre-state in the invariant's text (a residue ghost's as the
  // residue of its variable), and whether it is Boolean.
  absl::flat_hash_map<std::string, HornArg> Names() {
    absl::flat_hash_map<std::string, HornArg> names;
    const auto name = [&](Term var, HornArg arg) { names[s_.View(var).name] = std::move(arg); };
    for (const ResidueGhost& g : ghosts_) {
      const auto text = [&](const std::string& var) {
        return fmt::format("({} % {})", var, g.modulus.str());
      };
      if (!g.local) {
        name(pre_.shared[g.ghost], {text(p_.shared[g.var].name), false});
        continue;
      }
      for (std::uint32_t i = 0; i < n_; ++i) {
        name(pre_.locals[i][g.ghost],
             {text(fmt::format("{}[{}]", p_.locals[g.var].name, i)), false});
      }
    }
    const auto ghost = [&](bool local, std::size_t v) {
      return std::any_of(ghosts_.begin(), ghosts_.end(),
                         [&](const ResidueGhost& g) { return g.local == local && g.ghost == v; });
    };
    for (std::size_t v = 0; v < p_.shared.size(); ++v) {
      if (ghost(false, v)) continue;
      name(pre_.shared[v], {p_.shared[v].name, p_.shared[v].type == Type::kBool});
    }
    for (std::uint32_t i = 0; i < n_; ++i) {
      for (std::size_t v = 0; v < p_.locals.size(); ++v) {
        if (ghost(true, v)) continue;
        const Variable& var = p_.locals[v];
        // An element of a local array is named by the viewing thread's copy only.
        std::string text = var.name.find('[') == std::string::npos
                               ? fmt::format("{}[{}]", var.name, i)
                           : i == 0 ? var.name
                                    : std::string();
        name(pre_.locals[i][v], {std::move(text), var.type == Type::kBool});
      }
      for (std::size_t v = 0; v < p_.pairs.size(); ++v) {
        for (std::uint32_t j = 0; j < n_; ++j) {
          name(pre_.pairs[i][v][j], {fmt::format("{}[{}][{}]", p_.pairs[v].name, i, j),
                                     p_.pairs[v].type == Type::kBool});
        }
      }
    }
    return names;
  }

  // The relations a rule leads to from the initial one (every one, with the locations as
  // arguments).
  std::vector<bool> Derivable() const {
    std::vector<bool> derivable(tuples_.size(), locations_as_arguments_);
    std::vector<std::size_t> todo{0};
    derivable[0] = true;
    if (locations_as_arguments_) todo.clear();
    while (!todo.empty()) {
      const std::size_t r = todo.back();
      todo.pop_back();
      for (const std::size_t next : edges_[r]) {
        if (!derivable[next]) {
          derivable[next] = true;
          todo.push_back(next);
        }
      }
    }
    return derivable;
  }

  void Read(HornResult& out) {
    HornText reader(s_, Names());
    absl::flat_hash_set<std::string> seen;
    bool whole = true;
    // A relation no rule leads to is empty; the solver's answer for it (its own slicing drops
    // such relations) may say anything.
    const std::vector<bool> derivable = Derivable();
    std::vector<std::optional<std::string>> texts(tuples_.size());
    for (std::size_t r = 0; r < tuples_.size(); ++r) {
      if (!derivable[r]) continue;
      const Term formula =
          locations_as_arguments_ ? ModelAt(tuples_[r]) : s_.HornModel(relations_[r], pre_.all);
      reader.Atoms(formula, out.atoms, seen);
      if (!whole) continue;
      std::optional<std::string> text = reader.Formula(formula);
      if (!text) {
        whole = false;
        out.invariant.clear();
      } else if (*text != "false") {
        texts[r] = *text;
        out.invariant.push_back({tuples_[r], std::move(*text)});
      }
    }
    if (whole) PassedOver(texts, out);
  }

  std::size_t tuples() const { return tuples_.size(); }

 private:
  // Locations that only jump (`while true do {`'s test: no effect, always enabled, one place to
  // go) are passed over: a step into one leads to the tuple with the location it jumps to, so
  // that the encoding has no tuples with them (a ring buffer of two loops: 30 tuples, 20 without).
  // A state at such a location has the same data as the state one jump on, so the formula of the
  // tuple it jumps to covers it (PassedOver), and every step from it is covered: the jump leads
  // to a covered state, and another thread's step is one the tuple jumped to has as well.
  void Forwarding() {
    const std::size_t size = p_.statements.size() + p_.templates.size() + 1;
    forward_.resize(std::max<std::size_t>(size, p_.error_pc + 1));
    for (std::uint32_t pc = 0; pc < forward_.size(); ++pc) forward_[pc] = pc;
    if (locations_as_arguments_) return;
    for (std::uint32_t pc = 0; pc < p_.statements.size(); ++pc) {
      std::uint32_t at = pc;
      for (std::size_t hops = 0; hops <= p_.statements.size(); ++hops) {
        const std::optional<std::uint32_t> to =
            at < p_.statements.size() ? JumpOnly(at) : std::nullopt;
        if (!to) break;
        at = *to;
      }
      if (at < p_.statements.size() && JumpOnly(at)) at = pc;  // a loop of jumps: kept
      forward_[pc] = at;
    }
  }

  // Where statement `stmt` goes when it only jumps: its body has no effect and every condition
  // it tests is a literal.
  std::optional<std::uint32_t> JumpOnly(std::uint32_t stmt) const {
    const std::vector<Instr>* block = &p_.statements[stmt].body;
    std::size_t k = 0;
    for (std::size_t steps = 0; steps < 64; ++steps) {
      if (k == block->size()) {
        if (block == &p_.statements[stmt].body) return p_.statements[stmt].next;
        return std::nullopt;  // falls out of a branch: not followed here
      }
      const Instr& op = (*block)[k];
      if (op.kind == Instr::Kind::kGoto) return op.label;
      if (op.kind != Instr::Kind::kIf || op.exprs[0]->kind != Expr::Kind::kBool) {
        return std::nullopt;
      }
      const std::vector<Instr>& taken = op.blocks[op.exprs[0]->value != 0 ? 0 : 1];
      if (!taken.empty()) {
        block = &taken;
        k = 0;
      } else if (block == &p_.statements[stmt].body) {
        ++k;
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  Tuple Initial() const {
    Tuple first;
    for (std::uint32_t i = 0; i < n_; ++i) first.push_back(p_.templates[TemplateOf(i)].first);
    return first;
  }
  Tuple Forwarded(Tuple t) const {
    for (std::uint32_t& pc : t) pc = forward_[pc];
    return t;
  }

  // The tuples the control flow reaches with a location that only jumps: each with the formula
  // of the tuple it jumps to.
  void PassedOver(const std::vector<std::optional<std::string>>& texts, HornResult& out) const {
    std::vector<Tuple> all;
    absl::flat_hash_map<Tuple, std::size_t> ids;
    if (!Reach(/*forwarded=*/false, all, ids)) {
      out.invariant.clear();
      return;
    }
    for (const Tuple& t : all) {
      const Tuple to = Forwarded(t);
      if (to == t) continue;
      const auto it = ids_.find(to);
      if (it != ids_.end() && texts[it->second]) out.invariant.push_back({t, *texts[it->second]});
    }
  }

  // A state's scalars: the shared variables, and each thread's locals.
  struct Scalars {
    std::vector<Term> shared;
    std::vector<std::vector<Term>> locals;  // [thread][variable]
    // [thread][array][column]: each thread's row of each per-pair array
    std::vector<std::vector<std::vector<Term>>> pairs;
    std::vector<Term> all;  // the relation's arguments, in that order
  };
  Scalars Scalars(const std::string& tag) {
    struct Scalars out;
    for (const Variable& v : p_.shared) {
      out.shared.push_back(s_.FreshInt(tag + "." + v.name));
      out.all.push_back(out.shared.back());
    }
    for (std::uint32_t i = 0; i < n_; ++i) {
      out.locals.emplace_back();
      for (const Variable& v : p_.locals) {
        out.locals[i].push_back(s_.FreshInt(fmt::format("{}.{}.{}", tag, v.name, i)));
        out.all.push_back(out.locals[i].back());
      }
      out.pairs.emplace_back();
      for (const Variable& v : p_.pairs) {
        out.pairs[i].emplace_back();
        for (std::uint32_t j = 0; j < n_; ++j) {
          out.pairs[i].back().push_back(s_.FreshInt(fmt::format("{}.{}.{}.{}", tag, v.name, i, j)));
          out.all.push_back(out.pairs[i].back().back());
        }
      }
    }
    return out;
  }

  // The encoder's state for scalars at a location tuple: per-thread arrays as Store chains.
  SymState State(const struct Scalars& x, const Tuple& at) {
    SymState out;
    out.shared = x.shared;
    for (std::size_t v = 0; v < p_.locals.size(); ++v) {
      Term chain = s_.ConstIntArray(0);
      for (std::uint32_t i = 0; i < n_; ++i) chain = s_.Store(chain, s_.Num(i), x.locals[i][v]);
      out.locals.push_back(chain);
    }
    Term pc = s_.ConstIntArray(0);
    for (std::uint32_t i = 0; i < n_; ++i) pc = s_.Store(pc, s_.Num(i), s_.Num(at[i]));
    out.pc = pc;
    for (std::size_t v = 0; v < p_.pairs.size(); ++v) {
      Term entries = s_.ConstIntArray2(0);
      for (std::uint32_t i = 0; i < n_; ++i) {
        for (std::uint32_t j = 0; j < n_; ++j) {
          entries = s_.Store2(entries, s_.Num(i), s_.Num(j), x.pairs[i][v][j]);
        }
      }
      out.pairs.push_back(entries);
    }
    return out;
  }

  // The same with the locations as terms.
  SymState StateWithPcs(const struct Scalars& x, const std::vector<Term>& pcs) {
    SymState out = State(x, Tuple(n_, 0));
    Term pc = s_.ConstIntArray(0);
    for (std::uint32_t i = 0; i < n_; ++i) pc = s_.Store(pc, s_.Num(i), pcs[i]);
    out.pc = pc;
    return out;
  }
  Term ApplyAll(const std::vector<Term>& pcs, const struct Scalars& x) {
    std::vector<Term> args = pcs;
    args.insert(args.end(), x.all.begin(), x.all.end());
    return s_.HornApply(relations_[0], args);
  }
  // The second form's interpretation at one tuple, over the variables.
  Term ModelAt(const Tuple& at) {
    std::vector<Term> args;
    for (const std::uint32_t pc : at) args.push_back(s_.Num(pc));
    args.insert(args.end(), pre_.all.begin(), pre_.all.end());
    return s_.HornModel(relations_[0], args);
  }

  Term Apply(std::size_t relation, const struct Scalars& x) {
    return s_.HornApply(relations_[relation], x.all);
  }

  std::string RelationName(const Tuple& t) {
    std::string name = "at";
    for (const std::uint32_t pc : t) name += "_" + p_.PcName(pc);
    return name;
  }

  bool IsStatement(std::uint32_t pc) const { return pc < p_.statements.size(); }

  std::uint32_t TemplateOf(std::uint32_t thread) const {
    if (p_.templates.size() == 1) return 0;
    std::uint32_t seen = 0;
    for (std::uint32_t t = 0; t < p_.templates.size(); ++t) {
      seen += p_.templates[t].count;
      if (thread < seen) return t;
    }
    return static_cast<std::uint32_t>(p_.templates.size() - 1);
  }

  const Program& p_;
  const std::vector<ResidueGhost>& ghosts_;
  std::uint32_t n_;
  bool deadlock_;
  bool locations_as_arguments_;
  Solver& s_;
  Encoder enc_;
  ThreadCount count_;
  struct Scalars pre_;
  struct Scalars post_;
  std::vector<Tuple> tuples_;
  absl::flat_hash_map<Tuple, std::size_t> ids_;
  std::vector<std::uint32_t> relations_;
  std::vector<std::vector<std::size_t>> edges_;  // per tuple, the tuples its rules lead to
  std::vector<std::uint32_t> forward_;           // per location: where its jumps lead
};

HornResult SolveWith(Solver& s, const Program& program, std::uint32_t threads, bool deadlock,
                     unsigned timeout_ms, HornForm form);

// The same, where an error of the solver (an interrupted one throws from whatever it was doing)
// is `unknown`: the Horn solver is an extra, it never ends a run.
HornResult SolveGuarded(Solver& s, const Program& program, std::uint32_t threads, bool deadlock,
                        unsigned timeout_ms, HornForm form) {
  try {
    return SolveWith(s, program, threads, deadlock, timeout_ms, form);
  } catch (const std::logic_error&) {
    throw;  // a defect of druba's, not the solver's
  } catch (const std::exception& e) {
    HornResult out;
    out.form = form;
    out.reason = std::string("the solver stopped: ") + e.what();
    return out;
  }
}

}  // namespace

HornResult SolveHorn(const Program& program, std::uint32_t threads, bool deadlock,
                     unsigned timeout_ms, HornForm form) {
  const std::unique_ptr<Solver> solver = MakeZ3Solver(timeout_ms);
  return SolveGuarded(*solver, program, threads, deadlock, timeout_ms, form);
}

HornResult SolveHornEitherForm(const Program& program, std::uint32_t threads, bool deadlock,
                               unsigned timeout_ms, unsigned jobs,
                               const std::function<bool()>& stop) {
  const Stopwatch clock;
  // Each form in a Z3 context of its own, in worker threads: this thread watches `stop` and
  // interrupts them (and, side by side, the first answer interrupts the other).
  const std::unique_ptr<Solver> solvers[2] = {MakeZ3Solver(timeout_ms), MakeZ3Solver(timeout_ms)};
  HornResult results[2];
  std::atomic<int> done{0};
  std::atomic<int> winner{-1};
  std::atomic<bool> stopped{false};
  const bool side_by_side = jobs >= 2;
  const auto run = [&](int k, unsigned ms) {
    results[k] = SolveGuarded(*solvers[k], program, threads, deadlock, ms,
                              k == 0 ? HornForm::kTuples : HornForm::kLocationArguments);
    int none = -1;
    if (results[k].answer != SatResult::kUnknown) winner.compare_exchange_strong(none, k);
  };
  {
    std::vector<std::jthread> workers;
    workers.reserve(2);
    if (side_by_side) {
      for (int k = 0; k < 2; ++k) {
        workers.emplace_back([&, k] {
          run(k, timeout_ms);
          ++done;
        });
      }
    } else {  // one after the other, half the time each
      workers.emplace_back([&] {
        run(0, timeout_ms / 2);
        if (winner.load() < 0 && !stopped.load()) {
          run(1,
              static_cast<unsigned>(std::max(0.0, timeout_ms / 1000.0 - clock.Seconds()) * 1000));
        }
        done = 2;
      });
    }
    while (done.load() < 2) {
      // Interrupting again until a solver stops: one that has not yet started its query sees
      // the flag when it does.
      if (const int w = winner.load(); w >= 0 && side_by_side) solvers[1 - w]->Interrupt();
      if (!stopped.load() && stop && stop()) stopped = true;
      if (stopped.load()) {
        for (const auto& solver : solvers) solver->Interrupt();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const int w = winner.load();
  HornResult out = std::move(results[w >= 0 ? w : 0]);
  if (w < 0 && stopped.load()) {
    out.reason = "stopped by a limit or a signal";
    out.out_of_time = false;
  }
  out.seconds = clock.Seconds();
  return out;
}

namespace {

HornResult SolveWith(Solver& s, const Program& program, std::uint32_t threads, bool deadlock,
                     unsigned timeout_ms, HornForm form) {
  const Stopwatch clock;
  HornResult out;
  out.form = form;
  if (threads == 0 || program.templates.empty()) {
    out.reason = "no threads";
    return out;
  }
  Solver* solver = &s;
  const GhostedProgram ghosted = WithResidueGhosts(program);
  HornEncoding encoding(ghosted.program, ghosted.ghosts, threads,
                        deadlock || program.check_deadlock, form, *solver);
  const bool fits = encoding.Explore();
  out.tuples = encoding.tuples();
  if (!fits && form == HornForm::kTuples) {
    out.reason = fmt::format("more than {} location tuples", kMaxHornTuples);
    out.seconds = clock.Seconds();
    return out;
  }
  out.rules = encoding.Rules();
  const Stopwatch solving;
  out.answer = solver->HornSolve(timeout_ms);
  if (out.answer == SatResult::kUnsat && fits) {
    encoding.Read(out);
  } else if (out.answer == SatResult::kUnknown) {
    out.reason = solver->HornReason();
    // Spacer says "canceled" both for its timeout and for an interrupt: the clock tells them
    // apart (an interrupt that comes late is a limit, which SolveHornEitherForm says).
    out.out_of_time = solving.Seconds() * 1000 >= 0.9 * timeout_ms;
  }
  out.seconds = clock.Seconds();
  return out;
}

}  // namespace
}  // namespace druba::predabs
