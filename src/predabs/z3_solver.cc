// The Z3 implementation of predabs::Solver: the only file that includes z3++.h.
#include <z3++.h>

#include "predabs/solver.h"

namespace druba::predabs {
namespace {

class Z3Solver final : public Solver {
 public:
  explicit Z3Solver(unsigned timeout_ms)
      : thread_sort_(context_.uninterpreted_sort("Thread")), solver_(context_) {
    z3::params params(context_);
    params.set("timeout", timeout_ms);
    solver_.set(params);
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
    z3::params params(context_);
    params.set("timeout", timeout_ms);
    solver_.set(params);
  }
  void Push() override { solver_.push(); }
  void Pop() override { solver_.pop(); }
  void Assert(Term formula) override { solver_.add(at(formula)); }
  SatResult Check() override {
    ++checks_;
    switch (solver_.check()) {
      case z3::sat:
        model_ = std::make_unique<z3::model>(solver_.get_model());
        return SatResult::kSat;
      case z3::unsat:
        return SatResult::kUnsat;
      case z3::unknown:
        break;
    }
    return SatResult::kUnknown;
  }
  bool ModelBool(Term formula) override { return model_->eval(at(formula), true).is_true(); }
  drb::Int ModelInt(Term term) override {
    return drb::Int(model_->eval(at(term), true).get_decimal_string(0));
  }
  std::string ReasonUnknown() override { return solver_.reason_unknown(); }
  std::uint64_t num_checks() const override { return checks_; }

 private:
  Term Add(const z3::expr& e) {
    terms_.push_back(e);
    return static_cast<Term>(terms_.size() - 1);
  }
  const z3::expr& at(Term t) const { return terms_[t]; }
  std::string Name(const std::string& hint) { return hint + "!" + std::to_string(fresh_++); }

  z3::context context_;
  z3::sort thread_sort_;
  z3::solver solver_;
  std::vector<z3::expr> terms_;
  std::unique_ptr<z3::model> model_;
  std::uint64_t fresh_ = 0;
  std::uint64_t checks_ = 0;
};

}  // namespace

std::unique_ptr<Solver> MakeZ3Solver(unsigned timeout_ms) {
  return std::make_unique<Z3Solver>(timeout_ms);
}

}  // namespace druba::predabs
