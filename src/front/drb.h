// The `.drb` program kind as the command line sees it: its options (strategy/options.h) and its
// runs (verify and test through strategy/verify.h, replay, check), each ending in an outcome the
// command line prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "run/front_end.h"
#include "strategy/options.h"

namespace CLI {
class Option;
}  // namespace CLI

namespace druba::front {

class DrbFrontEnd final : public run::FrontEnd {
 public:
  std::string_view name() const override { return "a .drb program"; }
  std::string_view group() const override { return ".drb programs"; }
  std::string_view extension() const override { return ".drb"; }
  // A C program (docs/c.md) is read as the .drb program it translates to (c/translate.h).
  bool Reads(const std::string& model) const override {
    return model.ends_with(".drb") || model.ends_with(".c");
  }
  std::string Endings() const override { return ".drb, .c"; }
  void AddOptions(run::Command command, CLI::Option_group& group) override;
  std::string CheckUsage(const run::RunOptions& request) const override;
  run::Outcome Run(const run::RunOptions& request, const run::Sinks& sinks) override;

  const predabs::DrbOptions& options() const { return options_; }
  predabs::DrbOptions& options() { return options_; }

 private:
  predabs::DrbOptions options_;
  std::vector<const CLI::Option*> max_threads_;  // --max-threads of each command
};

}  // namespace druba::front
