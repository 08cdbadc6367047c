// The Z3 implementation of predabs::Solver: the only file that includes z3++.h.
#include <z3++.h>

#include <atomic>
#include <limits>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "smt/solver.h"

namespace druba::predabs {
namespace {

// The function TermView names a Z3 application of `kind` by, with its arguments as they are (none:
// another, or one whose arguments change: View).
std::optional<Fn> PlainFn(Z3_decl_kind kind) {
  switch (kind) {
    case Z3_OP_ADD:
      return Fn::kAdd;
    case Z3_OP_MUL:
      return Fn::kMul;
    case Z3_OP_UMINUS:
      return Fn::kNeg;
    case Z3_OP_IDIV:
      return Fn::kDiv;
    case Z3_OP_MOD:
      return Fn::kMod;
    case Z3_OP_LE:
      return Fn::kLe;
    case Z3_OP_LT:
      return Fn::kLt;
    case Z3_OP_EQ:
      return Fn::kEq;
    case Z3_OP_AND:
      return Fn::kAnd;
    case Z3_OP_OR:
      return Fn::kOr;
    case Z3_OP_NOT:
      return Fn::kNot;
    case Z3_OP_IMPLIES:
      return Fn::kImplies;
    case Z3_OP_ITE:
      return Fn::kIte;
    default:
      return std::nullopt;
  }
}

class Z3Solver final : public Solver {
 public:
  explicit Z3Solver(unsigned timeout_ms)
      : thread_sort_(context_.uninterpreted_sort("Thread")),
        solver_(context_),
        timeout_ms_(timeout_ms) {
    SetParameters();
  }

  Term IntValue(const drb::Int& value) override {
    return Add(context_.int_val(value.str().c_str()));
  }
  Term BoolValue(bool value) override { return Add(context_.bool_val(value)); }
  Term FreshInt(const std::string& hint) override {
    return Add(context_.int_const(Name(hint).c_str()));
  }
  Term FreshBool(const std::string& hint) override {
    return Add(context_.bool_const(Name(hint).c_str()));
  }
  Term FreshIntArray(const std::string& hint) override {
    return Add(context_.constant(Name(hint).c_str(),
                                 context_.array_sort(context_.int_sort(), context_.int_sort())));
  }
  Term ConstIntArray(const drb::Int& value) override {
    return Add(z3::const_array(context_.int_sort(), context_.int_val(value.str().c_str())));
  }
  Term FreshIntArray2(const std::string& hint) override {
    z3::sort_vector domain(context_);
    domain.push_back(context_.int_sort());
    domain.push_back(context_.int_sort());
    return Add(
        context_.constant(Name(hint).c_str(), context_.array_sort(domain, context_.int_sort())));
  }
  Term ConstIntArray2(const drb::Int& value) override {
    const z3::expr i = context_.int_const(Name("ci").c_str());
    const z3::expr j = context_.int_const(Name("cj").c_str());
    return Add(z3::lambda(i, j, context_.int_val(value.str().c_str())));
  }
  Term Select2(Term array, Term row, Term column) override {
    return Add(z3::select(at(array), Both(row, column)));
  }
  Term Store2(Term array, Term row, Term column, Term value) override {
    return Add(z3::store(at(array), Both(row, column), at(value)));
  }
  z3::expr_vector Both(Term row, Term column) {
    z3::expr_vector index(context_);
    index.push_back(at(row));
    index.push_back(at(column));
    return index;
  }
  Term FreshThread(const std::string& hint) override {
    return Add(context_.constant(Name(hint).c_str(), thread_sort_));
  }
  Term FreshThreadArray(const std::string& hint, bool boolean) override {
    return Add(context_.constant(
        Name(hint).c_str(),
        context_.array_sort(thread_sort_, boolean ? context_.bool_sort() : context_.int_sort())));
  }
  Term Select(Term array, Term index) override { return Add(z3::select(at(array), at(index))); }
  Term Store(Term array, Term index, Term value) override {
    return Add(z3::store(at(array), at(index), at(value)));
  }
  Term Apply(Fn fn, const std::vector<Term>& args) override {
    switch (fn) {
      case Fn::kAdd:
        return Add(at(args[0]) + at(args[1]));
      case Fn::kSub:
        return Add(at(args[0]) - at(args[1]));
      case Fn::kMul:
        return Add(at(args[0]) * at(args[1]));
      case Fn::kDiv:
        return Add(at(args[0]) / at(args[1]));
      case Fn::kMod:
        return Add(z3::mod(at(args[0]), at(args[1])));
      case Fn::kNeg:
        return Add(-at(args[0]));
      case Fn::kLt:
        return Add(at(args[0]) < at(args[1]));
      case Fn::kLe:
        return Add(at(args[0]) <= at(args[1]));
      case Fn::kEq:
        return Add(at(args[0]) == at(args[1]));
      case Fn::kNot:
        return Add(!at(args[0]));
      case Fn::kImplies:
        return Add(z3::implies(at(args[0]), at(args[1])));
      case Fn::kIte:
        return Add(z3::ite(at(args[0]), at(args[1]), at(args[2])));
      case Fn::kAnd:
      case Fn::kOr: {
        z3::expr_vector v(context_);
        for (const Term t : args) v.push_back(at(t));
        return Add(fn == Fn::kAnd ? z3::mk_and(v) : z3::mk_or(v));
      }
    }
    return Add(context_.bool_val(false));
  }
  Term Quantify(bool forall, Term variable, Term body) override {
    return Add(forall ? z3::forall(at(variable), at(body)) : z3::exists(at(variable), at(body)));
  }

  void SetTimeout(unsigned timeout_ms) override {
    // Z3 takes its global parameter lock and looks each name up again for every set_params, which
    // cost more than the queries themselves when asked before each of them (38 % of
    // double-checked-init's run for every thread count): an unchanged timeout is left as it is.
    if (timeout_ms == timeout_ms_) return;
    timeout_ms_ = timeout_ms;
    SetParameters();
  }
  void SetWorkLimit(std::uint64_t units) override {
    // Z3's rlimit is an unsigned int: a larger limit is none.
    const unsigned limit =
        units > std::numeric_limits<unsigned>::max() ? 0U : static_cast<unsigned>(units);
    if (limit == work_limit_) return;
    work_limit_ = limit;
    SetParameters();
  }
  void WatchLimits(LimitWatch* limits) override { limits_ = limits; }
  // Once interrupted, the context may stay cancelled (an interruption just after a query ended
  // leaves it so until the next query, and a push then throws "push canceled"): the solver asks
  // Z3 nothing more, and every query is undecided.
  void Push() override {
    if (!interrupted_.load()) solver_.push();
  }
  void Pop() override {
    if (!interrupted_.load()) solver_.pop();
  }
  void Assert(Term formula) override {
    if (!interrupted_.load()) solver_.add(at(formula));
  }
  SatResult Check() override {
    ++checks_;
    return Answer(solver_);
  }
  bool ModelBool(Term formula) override { return model_->eval(at(formula), true).is_true(); }
  drb::Int ModelInt(Term term) override {
    return drb::Int(model_->eval(at(term), true).get_decimal_string(0));
  }
  std::string ReasonUnknown() override { return reason_; }
  SatResult CheckAlone(const std::vector<Term>& formulas, unsigned timeout_ms) override {
    ++checks_;
    z3::solver fresh(context_);
    z3::params params(context_);
    params.set("timeout", timeout_ms != 0 ? std::min(timeout_ms, timeout_ms_) : timeout_ms_);
    params.set("rlimit", work_limit_);
    params.set("ctrl_c", false);
    fresh.set(params);
    for (const Term f : formulas) fresh.add(at(f));
    return Answer(fresh);
  }
  std::uint64_t num_checks() const override { return checks_; }
  std::uint64_t Work() const override { return work_; }
  std::size_t num_terms() const override { return terms_.size(); }
  void ForgetTermsFrom(std::size_t mark) override {
    if (mark < terms_.size()) terms_.resize(mark, context_.bool_val(true));
    model_.reset();  // it may hold the forgotten terms' values
  }
  std::uint64_t num_parameter_sets() const override { return parameter_sets_; }

  TermView View(Term term) override {
    const z3::expr e = at(term);
    TermView v;
    if (e.is_numeral()) {
      v.kind = TermView::Kind::kNumber;
      v.value = drb::Int(e.get_decimal_string(0));
      return v;
    }
    if (!e.is_app()) return v;
    const Z3_decl_kind kind = e.decl().decl_kind();
    if (kind == Z3_OP_TRUE || kind == Z3_OP_FALSE) {
      v.kind = TermView::Kind::kBool;
      v.value = kind == Z3_OP_TRUE ? 1 : 0;
      return v;
    }
    if (kind == Z3_OP_UNINTERPRETED && e.num_args() == 0) {
      v.kind = TermView::Kind::kVariable;
      v.name = e.decl().name().str();
      return v;
    }
    std::vector<Term> args;
    for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(Add(e.arg(i)));
    const auto apply = [&](Fn fn, std::vector<Term> a) {
      v.kind = TermView::Kind::kApply;
      v.fn = fn;
      v.args = std::move(a);
      return v;
    };
    if (const std::optional<Fn> fn = PlainFn(kind)) return apply(*fn, args);
    switch (kind) {
      case Z3_OP_SUB:
        return args.size() == 2 ? apply(Fn::kSub, args) : v;
      case Z3_OP_GE:
        return apply(Fn::kLe, {args[1], args[0]});
      case Z3_OP_GT:
        return apply(Fn::kLt, {args[1], args[0]});
      case Z3_OP_DISTINCT:
        return args.size() == 2 ? apply(Fn::kNot, {Add(at(args[0]) == at(args[1]))}) : v;
      default:
        return v;
    }
  }

  std::uint32_t HornRelation(const std::string& name, std::size_t arity) override {
    z3::sort_vector domain(context_);
    for (std::size_t i = 0; i < arity; ++i) domain.push_back(context_.int_sort());
    relations_.push_back(context_.function(name.c_str(), domain, context_.bool_sort()));
    relation_ids_.insert(relations_.back().id());
    Fixedpoint().register_relation(relations_.back());
    return static_cast<std::uint32_t>(relations_.size() - 1);
  }
  Term HornApply(std::uint32_t relation, const std::vector<Term>& args) override {
    z3::expr_vector v(context_);
    for (const Term t : args) v.push_back(at(t));
    return Add(relations_[relation](v));
  }
  bool HornRule(Term body, std::optional<Term> head) override {
    if (!query_) {
      query_ = std::make_unique<z3::func_decl>(
          context_.function("failure", 0, nullptr, context_.bool_sort()));
      Fixedpoint().register_relation(*query_);
      relation_ids_.insert(query_->id());
    }
    const z3::expr goal = head ? at(*head) : (*query_)();
    // Closed over the body's and the head's free constants.
    const z3::expr simple = at(body).simplify();
    if (simple.is_false()) return false;
    z3::expr rule = z3::implies(simple, goal);
    const z3::expr_vector free = FreeConstants(rule);
    if (!free.empty()) rule = z3::forall(free, rule);
    Fixedpoint().add_rule(rule, context_.str_symbol(("r" + std::to_string(rules_++)).c_str()));
    return true;
  }
  SatResult HornSolve(unsigned timeout_ms) override {
    z3::params params(context_);
    params.set("engine", "spacer");
    // Z3 would catch SIGINT itself while it solves, and the run would not hear of it.
    params.set("ctrl_c", false);
    // Inlining a relation into its neighbours leaves it no lemmas of its own: HornModel would
    // read "true" for it.
    params.set("xform.inline_linear", false);
    params.set("xform.inline_eager", false);
    params.set("timeout", timeout_ms);
    Fixedpoint().set(params);
    if (!query_) return SatResult::kUnsat;
    if (interrupted_) {
      horn_reason_ = "interrupted";
      return SatResult::kUnknown;
    }
    z3::expr goal = (*query_)();
    try {
      switch (Fixedpoint().query(goal)) {
        case z3::sat:
          return SatResult::kSat;
        case z3::unsat:
          return SatResult::kUnsat;
        case z3::unknown:
          break;
      }
      horn_reason_ = Fixedpoint().reason_unknown();
    } catch (const z3::exception& e) {
      horn_reason_ = e.msg();
    }
    return SatResult::kUnknown;
  }
  Term HornModel(std::uint32_t relation, const std::vector<Term>& args) override {
    if (!answer_read_) ReadAnswer();
    const auto it = definitions_.find(relations_[relation].id());
    // A relation the answer does not define is empty (the solver's preprocessing found that no
    // rule derives it).
    if (it == definitions_.end()) return Add(context_.bool_val(false));
    z3::expr body = it->second.first;
    const std::vector<unsigned>& index_of_arg = it->second.second;
    // body's free de Bruijn variable i is the argument whose index is i.
    z3::expr_vector by_index(context_);
    std::vector<z3::expr> slots(index_of_arg.size(), context_.int_val(0));
    for (std::size_t j = 0; j < index_of_arg.size(); ++j) slots[index_of_arg[j]] = at(args[j]);
    for (const z3::expr& e : slots) by_index.push_back(e);
    return Add(body.substitute(by_index).simplify());
  }
  std::string HornReason() override { return horn_reason_; }
  void Interrupt() override {
    interrupted_ = true;
    context_.interrupt();
  }

 private:
  // The solver's parameters: timeout_ms_, work_limit_, and no SIGINT handler (the signal is the
  // run's to hear).
  void SetParameters() {
    z3::params params(context_);
    params.set("timeout", timeout_ms_);
    params.set("rlimit", work_limit_);
    params.set("ctrl_c", false);
    solver_.set(params);
    ++parameter_sets_;
  }
  // `solver`'s answer to its assertions: the model when sat, the reason when undecided.
  SatResult Answer(z3::solver& solver) {
    reason_.clear();
    z3::check_result result = z3::unknown;
    if (!interrupted_.load()) {  // Z3's own timeout can overshoot; it does not hear signals
      const CancelGuard cancel = CancelOnStop(limits_, [this] { Interrupt(); });
      result = solver.check();
      ReadWork(solver);
    }
    // Interrupted, even after Z3 answered: the run is stopping (the canceller fires only then).
    if (interrupted_.load()) {
      reason_ = "interrupted";
      return SatResult::kUnknown;
    }
    switch (result) {
      case z3::sat:
        model_ = std::make_unique<z3::model>(solver.get_model());
        return SatResult::kSat;
      case z3::unsat:
        return SatResult::kUnsat;
      case z3::unknown:
        break;
    }
    reason_ = solver.reason_unknown();
    return SatResult::kUnknown;
  }

  // The context's resource count (cumulative over its solvers) after a check.
  void ReadWork(z3::solver& solver) {
    const z3::stats stats = solver.statistics();
    for (unsigned i = 0; i < stats.size(); ++i) {
      if (stats.is_uint(i) && stats.key(i) == "rlimit count") {
        work_ = std::max<std::uint64_t>(work_, stats.uint_value(i));
      }
    }
  }

  Term Add(const z3::expr& e) {
    terms_.push_back(e);
    return static_cast<Term>(terms_.size() - 1);
  }
  const z3::expr& at(Term t) const { return terms_[t]; }
  std::string Name(const std::string& hint) { return hint + "!" + std::to_string(fresh_++); }
  // The solver's answer after unsat: a conjunction of `forall x: R(x) = body(x)`, one per
  // relation it defines (the relations it does not define are empty).
  void ReadAnswer() {
    answer_read_ = true;
    const z3::expr answer = Fixedpoint().get_answer();
    std::vector<z3::expr> parts;
    if (answer.is_app() && answer.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = 0; i < answer.num_args(); ++i) parts.push_back(answer.arg(i));
    } else {
      parts.push_back(answer);
    }
    for (const z3::expr& part : parts) {
      z3::expr eq = part.is_quantifier() ? part.body() : part;
      if (!eq.is_app()) continue;
      z3::expr head = eq;
      z3::expr body = context_.bool_val(true);
      if (eq.decl().decl_kind() == Z3_OP_EQ && eq.num_args() == 2) {
        head = eq.arg(0);
        body = eq.arg(1);
      } else if (eq.decl().decl_kind() == Z3_OP_NOT && eq.num_args() == 1) {
        head = eq.arg(0);
        body = context_.bool_val(false);
      }
      if (!head.is_app() || !relation_ids_.contains(head.decl().id())) continue;
      std::vector<unsigned> index_of_arg;
      bool plain = true;
      for (unsigned j = 0; j < head.num_args(); ++j) {
        const z3::expr a = head.arg(j);
        if (!a.is_var()) {
          plain = false;
          break;
        }
        index_of_arg.push_back(Z3_get_index_value(context_, a));
      }
      if (!plain || (part.is_quantifier() &&
                     Z3_get_quantifier_num_bound(context_, part) != head.num_args())) {
        continue;  // not a definition this reads: the relation stays undefined
      }
      definitions_.insert_or_assign(head.decl().id(), std::pair(body, index_of_arg));
    }
  }
  z3::fixedpoint& Fixedpoint() {
    if (!fixedpoint_) fixedpoint_ = std::make_unique<z3::fixedpoint>(context_);
    return *fixedpoint_;
  }
  // The uninterpreted constants of `e` (the rule's variables), each once.
  z3::expr_vector FreeConstants(const z3::expr& e) {
    z3::expr_vector out(context_);
    absl::flat_hash_set<unsigned> seen;
    std::vector<z3::expr> todo{e};
    while (!todo.empty()) {
      const z3::expr x = todo.back();
      todo.pop_back();
      if (!seen.insert(x.id()).second) continue;
      if (!x.is_app()) continue;
      if (x.num_args() == 0 && x.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
          !relation_ids_.contains(x.decl().id())) {
        out.push_back(x);
        continue;
      }
      for (unsigned i = 0; i < x.num_args(); ++i) todo.push_back(x.arg(i));
    }
    return out;
  }

  z3::context context_;
  z3::sort thread_sort_;
  z3::solver solver_;
  std::vector<z3::expr> terms_;
  std::unique_ptr<z3::model> model_;
  unsigned timeout_ms_;
  std::string reason_;  // why the last check was undecided
  std::uint64_t fresh_ = 0;
  std::uint64_t checks_ = 0;
  std::uint64_t work_ = 0;   // Work()
  unsigned work_limit_ = 0;  // SetWorkLimit
  std::uint64_t parameter_sets_ = 0;
  std::unique_ptr<z3::fixedpoint> fixedpoint_;  // the Horn clauses, made on first use
  std::vector<z3::func_decl> relations_;
  absl::flat_hash_set<unsigned> relation_ids_;  // and the query's: not rule variables
  std::unique_ptr<z3::func_decl> query_;
  std::uint64_t rules_ = 0;
  std::string horn_reason_;
  bool answer_read_ = false;
  std::atomic<bool> interrupted_{false};
  LimitWatch* limits_ = nullptr;
  // Per relation (by its declaration's id), its definition and the de Bruijn index of each of
  // its arguments there.
  absl::flat_hash_map<unsigned, std::pair<z3::expr, std::vector<unsigned>>> definitions_;
};

}  // namespace

std::unique_ptr<Solver> MakeZ3Solver(unsigned timeout_ms) {
  return std::make_unique<Z3Solver>(timeout_ms);
}

}  // namespace druba::predabs
