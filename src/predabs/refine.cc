#include "predabs/refine.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "common/diagnostics.h"
#include "predabs/parser.h"

namespace druba::predabs {
namespace {

using Kind = Expr::Kind;
using Op = Expr::Op;

// A predicate over the executing thread's state, rendered for any thread: `text(self_as)`
// writes it from the point of view of the thread named `self_as` ("" for self).
struct Atom {
  std::function<std::string(const std::string&)> text;
  std::vector<std::uint32_t> locals;  // the thread's own locals it reads
  bool liftable = false;              // no quantifier, no location, no `self`, no fixed index
};

void Walk(const Expr& e, const std::function<void(const Expr&)>& visit) {
  visit(e);
  for (const ExprPtr& arg : e.args) Walk(*arg, visit);
}

Atom ExprAtom(const Program& program, const Expr& e) {
  Atom atom;
  atom.liftable = true;
  Walk(e, [&](const Expr& x) {
    if (x.kind == Kind::kLocal && x.args.empty()) atom.locals.push_back(x.var);
    if (x.kind == Kind::kLocal && !x.args.empty()) atom.liftable = false;
    // A local array's element is the thread's own: no other thread's can be named.
    if (x.kind == Kind::kLocalElement ||
        (x.kind == Kind::kLocal && program.locals[x.var].name.find('[') != std::string::npos)) {
      atom.liftable = false;
    }
    if (x.kind == Kind::kPc || x.kind == Kind::kSelf || x.kind == Kind::kForall ||
        x.kind == Kind::kExists || x.kind == Kind::kCount || x.kind == Kind::kBound) {
      atom.liftable = false;
    }
  });
  atom.text = [&program, &e](const std::string& self_as) {
    if (e.kind != Kind::kBinary) return ExprToString(program, e, self_as);
    const std::string a = ExprToString(program, *e.args[0], self_as);
    const std::string b = ExprToString(program, *e.args[1], self_as);
    switch (e.op) {
      case Op::kEq:
      case Op::kNe:
        return a + " == " + b;
      case Op::kLt:
      case Op::kGe:
        return a + " < " + b;
      case Op::kGt:
      case Op::kLe:
        return b + " < " + a;
      default:
        return ExprToString(program, e, self_as);
    }
  };
  return atom;
}

// The Boolean atoms of a condition: below negations and connectives, not into quantifiers.
void ConditionAtoms(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Kind::kUnary && e.op == Op::kNot) return ConditionAtoms(*e.args[0], out);
  if (e.kind == Kind::kBinary && (e.op == Op::kAnd || e.op == Op::kOr || e.op == Op::kImplies)) {
    ConditionAtoms(*e.args[0], out);
    ConditionAtoms(*e.args[1], out);
    return;
  }
  if (e.kind == Kind::kBool || e.kind == Kind::kNumber) return;
  if (e.sort == Sort::kBool) out.push_back(&e);
}

void BodyAtoms(const std::vector<Instr>& body, std::vector<const Expr*>& out) {
  for (const Instr& op : body) {
    if (op.kind == Instr::Kind::kAssume || op.kind == Instr::Kind::kAssert ||
        op.kind == Instr::Kind::kIf) {
      ConditionAtoms(*op.exprs[0], out);
    }
    if (op.kind == Instr::Kind::kAssign) {
      for (const ExprPtr& rhs : op.exprs) {
        if (rhs->sort == Sort::kBool) ConditionAtoms(*rhs, out);
      }
    }
    for (const std::vector<Instr>& block : op.blocks) BodyAtoms(block, out);
  }
}

bool Reads(const Expr& e, std::uint32_t local) {
  bool found = false;
  Walk(e, [&](const Expr& x) {
    found = found || (x.kind == Kind::kLocal && x.args.empty() && x.var == local);
  });
  return found;
}

// The labels of the statements that give `local` a value before reading it: there the value a
// thread holds is stale.
std::vector<std::string> DeadAt(const Program& program, std::uint32_t local) {
  std::vector<std::string> out;
  for (const Statement& st : program.statements) {
    if (st.body.empty() || st.body[0].kind != Instr::Kind::kAssign || st.label[0] == '@') continue;
    const Instr& op = st.body[0];
    const bool writes = std::any_of(op.targets.begin(), op.targets.end(),
                                    [&](const auto& t) { return t.local && t.var == local; });
    const bool reads = std::any_of(op.exprs.begin(), op.exprs.end(),
                                   [&](const ExprPtr& rhs) { return Reads(*rhs, local); });
    if (writes && !reads) out.push_back(st.label);
  }
  return out;
}

// A bound variable's name that no variable or label of the program uses.
std::string BinderName(const Program& program) {
  absl::flat_hash_set<std::string> used;
  for (const Variable& v : program.shared) used.insert(v.name);
  for (const Variable& v : program.locals) used.insert(v.name);
  for (const Statement& st : program.statements) used.insert(st.label);
  for (const char* name : {"i", "j", "k", "i1", "j1", "k1"}) {
    if (!used.contains(name)) return name;
  }
  return "i_refine";
}

// The data atoms: condition atoms, Boolean variables, variables at their initial value, and
// comparisons of two integer variables.
std::vector<Atom> DataAtoms(const Program& program) {
  std::vector<Atom> atoms;
  std::vector<const Expr*> conditions;
  for (const Statement& st : program.statements) BodyAtoms(st.body, conditions);
  atoms.reserve(conditions.size());
  for (const Expr* e : conditions) atoms.push_back(ExprAtom(program, *e));
  struct Var {
    std::string name;
    bool local;
    std::uint32_t index;
    const Variable* decl;
  };
  std::vector<Var> ints;
  const auto add_vars = [&](const std::vector<Variable>& vars, bool local) {
    for (std::uint32_t i = 0; i < vars.size(); ++i) {
      const auto name = [&vars, i, local](const std::string& self_as) {
        return vars[i].name + (local && !self_as.empty() ? "[" + self_as + "]" : "");
      };
      const std::vector<std::uint32_t> locals =
          local ? std::vector<std::uint32_t>{i} : std::vector<std::uint32_t>{};
      if (vars[i].type == Type::kBool) {
        atoms.push_back({name, locals, true});
        continue;
      }
      ints.push_back({vars[i].name, local, i, &vars[i]});
      const std::string init = vars[i].init.str();
      atoms.push_back(
          {[name, init](const std::string& s) { return name(s) + " == " + init; }, locals, true});
    }
  };
  add_vars(program.shared, false);
  add_vars(program.locals, true);
  for (std::size_t a = 0; a < ints.size(); ++a) {
    for (std::size_t b = a + 1; b < ints.size(); ++b) {
      const Var x = ints[a];
      const Var y = ints[b];
      const auto name = [](const Var& v, const std::string& s) {
        return v.name + (v.local && !s.empty() ? "[" + s + "]" : "");
      };
      std::vector<std::uint32_t> locals;
      if (x.local) locals.push_back(x.index);
      if (y.local) locals.push_back(y.index);
      for (const char* op : {" == ", " < "}) {
        atoms.push_back(
            {[=](const std::string& s) { return name(x, s) + op + name(y, s); }, locals, true});
      }
      atoms.push_back(
          {[=](const std::string& s) { return name(y, s) + " < " + name(x, s); }, locals, true});
    }
  }
  return atoms;
}

// The forms over the other threads (one thread template only).
void OtherThreadForms(const Program& program, const std::vector<Atom>& atoms,
                      std::vector<std::string>& out) {
  const std::string j = BinderName(program);
  std::vector<std::string> places;
  for (const Statement& st : program.statements) {
    if (st.label[0] != '@') places.push_back(st.label);
  }
  places.emplace_back("end");
  for (const std::string& label : places) {
    out.push_back(fmt::format("forall {0} != self: pc[{0}] != {1}", j, label));
  }
  const auto guard = [&](const std::vector<std::uint32_t>& locals) {
    std::set<std::string> labels;
    for (const std::uint32_t l : locals) {
      for (const std::string& label : DeadAt(program, l)) labels.insert(label);
    }
    std::string text;
    for (const std::string& label : labels) text += fmt::format("pc[{}] == {} || ", j, label);
    return text;
  };
  for (const Atom& atom : atoms) {
    if (!atom.liftable || atom.locals.empty()) continue;
    const std::string lifted = atom.text(j);
    const std::string g = guard(atom.locals);
    out.push_back(fmt::format("forall {}: {}", j, lifted));
    if (!g.empty()) out.push_back(fmt::format("forall {} != self: {}{}", j, g, lifted));
    out.push_back(fmt::format("forall {} != self: {}!({})", j, g, lifted));
  }
  // Every other thread's assertion holds where it is made.
  for (const Statement& st : program.statements) {
    if (st.label[0] == '@') continue;
    for (const Instr& op : st.body) {
      if (op.kind != Instr::Kind::kAssert) continue;
      if (!ExprAtom(program, *op.exprs[0]).liftable) continue;
      out.push_back(fmt::format("forall {0} != self: pc[{0}] != {1} || {2}", j, st.label,
                                ExprToString(program, *op.exprs[0], j)));
    }
  }
  for (std::uint32_t l = 0; l < program.locals.size(); ++l) {
    if (program.locals[l].type == Type::kBool) continue;
    const std::string& y = program.locals[l].name;
    out.push_back(fmt::format("forall {0} != self: {1}{2} != {2}[{0}]", j, guard({l}), y));
  }
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string PredicateLine(const Program& program, const Predicate& p) {
  const std::string expr = ExprToString(program, *p.expr);
  if (IsIdentifier(p.name) && p.name != expr) return fmt::format("predicate {}: {};", p.name, expr);
  return fmt::format("predicate {};", p.name);
}

std::string TrackLine(const TrackedPc& pc) {
  return pc.thread ? "track pc[" + std::to_string(*pc.thread) + "];" : "track pc;";
}

std::string BlockText(const std::string& name, const std::vector<std::string>& lines) {
  std::string out = fmt::format("abstraction {} {{\n", name);
  for (const std::string& line : lines) out += fmt::format("  {}\n", line);
  return out + "}\n";
}

}  // namespace

namespace {

// "the index is inside the array" for every element of a fixed-size array the code picks at run
// time: the abstraction must know it where the program never fails on it.
void IndexRanges(const Program& program, const std::vector<Instr>& body,
                 std::vector<std::string>& out) {
  const auto range = [&](const Expr& index, std::uint32_t size) {
    const std::string e = ExprToString(program, index);
    out.push_back("0 <= " + e + " && " + e + " < " + std::to_string(size));
  };
  const auto visit = [&](const Expr& x) {
    if (x.kind == Kind::kSharedElement || x.kind == Kind::kLocalElement) {
      range(*x.args[0], static_cast<std::uint32_t>(x.value));
    }
  };
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) Walk(*e, visit);
    for (const Instr::Target& t : op.targets) {
      if (t.index && t.size > 0) range(*t.index, t.size);
    }
    for (const std::vector<Instr>& block : op.blocks) IndexRanges(program, block, out);
  }
}

}  // namespace

std::vector<std::string> CandidatePredicates(const Program& program) {
  const std::vector<Atom> atoms = DataAtoms(program);
  std::vector<std::string> out;
  out.reserve(atoms.size());
  for (const Atom& atom : atoms) out.push_back(atom.text(""));
  for (const Statement& st : program.statements) IndexRanges(program, st.body, out);
  if (program.templates.size() == 1) OtherThreadForms(program, atoms, out);
  std::vector<std::string> unique;
  absl::flat_hash_set<std::string> seen;
  for (std::string& text : out) {
    if (seen.insert(text).second) unique.push_back(std::move(text));
  }
  return unique;
}

std::string AbstractionBlock(const Program& program, const AbstractionSpec& spec,
                             const std::string& name) {
  std::vector<std::string> lines;
  for (const TrackedPc& pc : spec.pcs) lines.push_back(TrackLine(pc));
  for (const Predicate& p : spec.predicates) lines.push_back(PredicateLine(program, p));
  return BlockText(name, lines);
}

Refiner::Refiner(std::string source, const Program& program, const AbstractionSpec& start,
                 bool every_count, unsigned timeout_ms, std::uint32_t max_rounds,
                 const SolverLog* log)
    : source_(std::move(source)),
      timeout_ms_(std::min(timeout_ms, kTestTimeoutMs)),
      max_rounds_(max_rounds),
      program_(&program),
      spec_(&start),
      log_(log) {
  name_ = "refined";
  for (int k = 2; std::any_of(program.abstractions.begin(), program.abstractions.end(),
                              [&](const AbstractionSpec& a) { return a.name == name_; });
       ++k) {
    name_ = "refined" + std::to_string(k);
  }
  for (const TrackedPc& pc : start.pcs) pcs_.push_back(TrackLine(pc));
  for (const Predicate& p : start.predicates) lines_.push_back(PredicateLine(program, p));
  absl::flat_hash_set<std::string> have;
  for (const Predicate& p : start.predicates) have.insert(ExprToString(program, *p.expr));
  for (const std::string& text : CandidatePredicates(program)) {
    if (pool_.size() >= kMaxCandidates) break;
    const std::unique_ptr<Program> parsed = WithPredicates({"predicate " + text + ";"});
    if (!parsed) continue;
    const AbstractionSpec& spec = parsed->abstractions.back();
    if (every_count && !spec.symmetric) continue;
    if (!have.insert(ExprToString(*parsed, *spec.predicates.back().expr)).second) continue;
    pool_.push_back(text);
  }
  figures_.candidates = pool_.size();
  for (const std::string& text : pool_) Log("candidate " + text);
}

void Refiner::Log(const std::string& line) const {
  if (log_ != nullptr && *log_) (*log_)("druba: refine: " + line);
}

Refiner::~Refiner() = default;

Solver* Refiner::Shared() {
  if (!solver_) solver_ = MakeZ3Solver(timeout_ms_);
  return solver_.get();
}

std::unique_ptr<Program> Refiner::WithPredicates(const std::vector<std::string>& extra) const {
  std::vector<std::string> lines = pcs_;
  lines.insert(lines.end(), lines_.begin(), lines_.end());
  lines.insert(lines.end(), extra.begin(), extra.end());
  try {
    auto parsed = std::make_unique<Program>(
        ParseProgram(source_ + "\n" + BlockText(name_, lines), program_->file));
    // What the next round's abstraction would refuse is no candidate (a thread index that is
    // neither a number nor a quantified thread, a thread the run does not have).
    CheckAbstractionFits(*parsed, parsed->abstractions.back(),
                         fit_threads_ == 0 ? std::nullopt : std::optional(fit_threads_));
    return parsed;
  } catch (const InputError&) {
    return nullptr;
  }
}

std::string Refiner::Block() const {
  std::vector<std::string> lines = pcs_;
  lines.insert(lines.end(), lines_.begin(), lines_.end());
  return BlockText(name_, lines);
}

Refiner::Weights Refiner::Weigh(const Break& at) const {
  Weights out;
  if (at.sample == nullptr || at.sample_threads == 0) return out;
  const IntModel model(*program_, at.sample_threads);
  const PredicateAbstraction abs(model, *spec_, timeout_ms_);
  const std::size_t width = model.state_width();
  StateStore groups(abs.width());
  std::vector<Word> alpha(abs.width());
  const std::size_t n = std::min(at.sample->size() / width, kWeighedStates);
  for (std::size_t i = 0; i < n; ++i) {
    const StateView state(at.sample->data() + i * width, width);
    abs.Abstract(state, alpha);
    out.group.push_back(groups.FindOrInsert(StateView(alpha)).id);
    out.at_from.push_back(alpha == at.failure.from);
    out.states.emplace_back(state.begin(), state.end());
  }
  out.num_groups = groups.size();
  return out;
}

std::vector<Word> Refiner::ValuesOn(const Program& candidate, const Weights& weights,
                                    std::uint32_t threads) const {
  std::vector<Word> values;
  if (weights.states.empty()) return values;
  const IntModel model(candidate, threads);
  const Expr& p = *candidate.abstractions.back().predicates.back().expr;
  for (const auto& state : weights.states) values.push_back(model.Holds(p, StateView(state), 0));
  return values;
}

bool Refiner::RemovesBreak(const Program& candidate, const Break& at,
                           const std::vector<std::vector<Word>>& combos, LimitWatch* limits) {
  const AbstractionSpec& spec = candidate.abstractions.back();
  const StateStore& reached = at.reached;
  const std::size_t place = reached.width() - 1;  // the new predicates', before the failed bit
  const std::size_t k = spec.predicates.size() - (place - spec.pcs.size());
  // The reached set with the new predicates any way: the view invariant as before.
  StateStore wider(reached.width() + k);
  std::vector<Word> words(reached.width() + k);
  const auto widen = [&](StateView a, std::size_t bits) {
    std::copy(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(place), words.begin());
    for (std::size_t i = 0; i < k; ++i) words[place + i] = (bits >> i) & 1U;
    words[place + k] = a[place];
  };
  for (std::uint32_t id = 0; id < reached.size(); ++id) {
    for (std::size_t bits = 0; bits < (std::size_t{1} << k); ++bits) {
      widen(reached.Get(id), bits);
      wider.FindOrInsert(StateView(words));
    }
  }
  const bool other = at.failure.thread == kOtherThread;
  const ActionClass action{at.failure.action, other ? 1U : at.failure.thread, other, false, false};
  // Whether no step from a with the candidates at `bits` reaches b (false when undecided).
  const auto blocks = [&](std::size_t bits) {
    widen(StateView(at.failure.from), bits);
    std::vector<std::vector<Word>> successors;
    std::string why;
    ++figures_.tested;
    if (!AbstractSuccessorsOf(candidate, spec, at.count, at.min_threads, action, StateView(words),
                              wider, timeout_ms_, limits, &figures_.stats, &successors, &why,
                              Shared())) {
      return false;
    }
    return std::none_of(successors.begin(), successors.end(), [&](const auto& s) {
      std::vector<Word> narrow(s.begin(), s.end());
      narrow.erase(narrow.begin() + static_cast<std::ptrdiff_t>(place),
                   narrow.begin() + static_cast<std::ptrdiff_t>(place + k));
      return narrow == at.failure.to;
    });
  };
  const auto bits_of = [](const std::vector<Word>& combo) {
    std::size_t bits = 0;
    for (std::size_t i = 0; i < combo.size(); ++i) bits |= std::size_t{combo[i]} << i;
    return bits;
  };
  if (!combos.empty()) {
    return std::all_of(combos.begin(), combos.end(),
                       [&](const std::vector<Word>& c) { return blocks(bits_of(c)); });
  }
  // Without concrete states at a: some value admitted by a well-formed state must block.
  for (std::size_t bits = 0; bits < (std::size_t{1} << k); ++bits) {
    if (!blocks(bits)) continue;
    widen(StateView(at.failure.from), bits);
    if (AbstractStateAdmitted(candidate, spec, at.count, at.min_threads, StateView(words), wider,
                              timeout_ms_, limits, &figures_.stats, Shared()) == SatResult::kSat) {
      return true;
    }
  }
  return false;
}

std::vector<Refiner::Move> Refiner::Moves(const Weights& weights,
                                          const std::vector<std::vector<Word>>& values,
                                          std::size_t depth) const {
  // A candidate's score: in how many of the current abstraction's classes of sampled states it
  // takes both values (0: it holds or fails alike in each, an invariant of the reached states
  // that the abstraction does not yet state).
  std::vector<std::uint32_t> score(pool_.size(), 0);
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    if (values[c].empty()) continue;
    std::vector<std::uint8_t> seen(weights.num_groups, 0);
    for (std::size_t i = 0; i < values[c].size(); ++i) {
      seen[weights.group[i]] |= static_cast<std::uint8_t>(values[c][i] != 0 ? 2 : 1);
    }
    score[c] = static_cast<std::uint32_t>(std::count(seen.begin(), seen.end(), 3));
  }
  const auto usable = [&](std::size_t c) { return !values[c].empty() || weights.states.empty(); };
  std::vector<Move> moves;
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    if (usable(c) && !Taken(c, depth)) moves.push_back({{c}, score[c]});
  }
  for (std::size_t a = 0; a < pool_.size(); ++a) {
    for (std::size_t b = a + 1; b < pool_.size(); ++b) {
      if (!usable(a) || !usable(b) || Taken(a, depth) || Taken(b, depth)) continue;
      if (score[a] + score[b] > kPairScore) continue;
      moves.push_back({{a, b}, score[a] + score[b]});
    }
  }
  std::stable_sort(moves.begin(), moves.end(), [](const Move& x, const Move& y) {
    return std::pair(x.score, x.picks.size()) < std::pair(y.score, y.picks.size());
  });
  if (moves.size() > kMaxMoves) moves.resize(kMaxMoves);
  return moves;
}

bool Refiner::Taken(std::size_t c, std::size_t depth) const {
  return (depth < banned_.size() && banned_[depth].contains(pool_[c])) ||
         std::find(figures_.added.begin(), figures_.added.end(), pool_[c]) != figures_.added.end();
}

bool Refiner::Refine(const Break& at, LimitWatch* limits) {
  stuck_ = false;
  if (figures_.added.size() >= kMaxRefinements) {
    figures_.stopped =
        "the search reached its bound of " + std::to_string(kMaxRefinements) + " added predicates";
    stuck_ = true;
    return false;
  }
  const std::size_t depth = moves_.size();
  if (banned_.size() <= depth) banned_.resize(depth + 1);
  fit_threads_ = at.count.value_or(at.min_threads);
  const Weights weights = Weigh(at);
  if (log_ != nullptr) {
    Log(fmt::format("break at ({}) to ({}), {} sampled states, {} at the first",
                    DescribeAbstract(*program_, *spec_, StateView(at.failure.from)),
                    DescribeAbstract(*program_, *spec_, StateView(at.failure.to)),
                    weights.states.size(),
                    std::count(weights.at_from.begin(), weights.at_from.end(), true)));
  }
  std::vector<std::vector<Word>> values(pool_.size());
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    if (const auto candidate = WithPredicates({"predicate " + pool_[c] + ";"})) {
      values[c] = ValuesOn(*candidate, weights, at.sample_threads);
    }
  }
  for (const Move& move : Moves(weights, values, depth)) {
    if (limits != nullptr && limits->Check()) {
      figures_.stopped = "refinement stopped by " + *limits->Check();
      return false;
    }
    if (TryMove(move, at, weights, values, limits)) return true;
  }
  figures_.stopped = "no candidate predicate removes the closure break (" +
                     std::to_string(figures_.candidates) + " candidates, alone and in pairs)";
  stuck_ = true;
  return false;
}

bool Refiner::TryMove(const Move& move, const Break& at, const Weights& weights,
                      const std::vector<std::vector<Word>>& values, LimitWatch* limits) {
  const auto removes = [&](const std::vector<std::size_t>& picks) -> std::unique_ptr<Program> {
    std::vector<std::string> lines;
    lines.reserve(picks.size());
    for (const std::size_t c : picks) lines.push_back(fmt::format("predicate {};", pool_[c]));
    std::unique_ptr<Program> candidate = WithPredicates(lines);
    if (!candidate) return nullptr;
    // The value combinations the candidates take in the sampled states at a.
    std::vector<std::vector<Word>> combos;
    for (std::size_t i = 0; i < weights.states.size(); ++i) {
      if (!weights.at_from[i]) continue;
      std::vector<Word> combo;
      combo.reserve(picks.size());
      for (const std::size_t c : picks) combo.push_back(values[c][i]);
      if (std::find(combos.begin(), combos.end(), combo) == combos.end()) combos.push_back(combo);
    }
    if (!weights.states.empty() && combos.empty()) return nullptr;  // a not in the sample
    return RemovesBreak(*candidate, at, combos, limits) ? std::move(candidate) : nullptr;
  };
  std::unique_ptr<Program> candidate = removes(move.picks);
  if (!candidate) return false;
  std::vector<std::size_t> picks = move.picks;
  if (picks.size() == 2) {  // keep one alone when it suffices
    for (const std::size_t c : move.picks) {
      if (auto alone = removes({c})) {
        picks = {c};
        candidate = std::move(alone);
        break;
      }
    }
  }
  std::string names;
  for (const std::size_t c : picks) {
    figures_.added.push_back(pool_[c]);
    lines_.push_back("predicate " + pool_[c] + ";");
    names += (names.empty() ? "" : " and ") + pool_[c];
  }
  moves_.push_back(Move{picks, move.score});
  figures_.round_notes.push_back(
      "the break at (" + DescribeAbstract(*program_, *spec_, StateView(at.failure.from)) +
      ") to (" + DescribeAbstract(*program_, *spec_, StateView(at.failure.to)) + "): added " +
      names);
  Log(fmt::format("{} (score {})", figures_.round_notes.back(), move.score));
  owned_ = std::move(candidate);
  program_ = owned_.get();
  spec_ = &owned_->abstractions.back();
  return true;
}

bool Refiner::Backtrack() {
  if (!stuck_ || moves_.empty()) return false;
  if (figures_.rounds >= max_rounds_) {
    figures_.stopped += "; the search ended at its bound of " + std::to_string(max_rounds_) +
                        " verification rounds";
    return false;
  }
  const Move last = moves_.back();
  moves_.pop_back();
  figures_.round_notes.pop_back();
  std::string names;
  for (std::size_t i = 0; i < last.picks.size(); ++i) {
    names = names.empty() ? figures_.added.back()
                          : fmt::format("{} and {}", figures_.added.back(), names);
    figures_.added.pop_back();
    lines_.pop_back();
  }
  ++figures_.backtracks;
  Log("dead end, dropped " + names);
  const std::size_t depth = moves_.size();
  banned_.resize(depth + 1);
  // A dead end bans the move's first candidate at this depth (a pair's, its first).
  banned_[depth].insert(pool_[last.picks.front()]);
  owned_ = WithPredicates({});
  program_ = owned_.get();
  spec_ = &owned_->abstractions.back();
  stuck_ = false;
  figures_.stopped.clear();
  return true;
}

}  // namespace druba::predabs
