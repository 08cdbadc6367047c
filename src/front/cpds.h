// The CPDS (.pds) model kind as the command line sees it: its options (cpds/options.h) and its
// runs (verify, test, replay, check), each ending in an outcome the command line prints.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "cpds/cpds.h"
#include "cpds/options.h"
#include "cpds/reader.h"
#include "run/front_end.h"
#include "run/report.h"

namespace druba::cpds {
class TopKAbstraction;
}  // namespace druba::cpds

namespace druba::front {

// A CPDS model as read from its files (cpds::ReadModelFiles), its target checked against the
// abstraction depth --top.
using LoadedCpds = cpds::ModelFiles;
// Throws InputError (file, line and column) for what cannot be read.
LoadedCpds LoadCpds(const std::string& path, const cpds::CpdsOptions& options);

// druba's report of one run of the model `loaded` under `abs` (`druba verify` and `test`'s, and
// druba-mpi's).
run::Report CpdsReport(const run::RunOptions& options, const cpds::CpdsOptions& cpds_options,
                       const LoadedCpds& loaded, const cpds::TopKAbstraction& abs,
                       run::CountRun run);

class CpdsFrontEnd final : public run::FrontEnd {
 public:
  std::string_view name() const override { return "a CPDS model"; }
  std::string_view group() const override { return "CPDS models (.pds)"; }
  std::string_view extension() const override { return ".pds"; }
  void AddOptions(run::Command command, CLI::Option_group& group) override;
  std::string CheckUsage(const run::RunOptions& request) const override;
  run::Outcome Run(const run::RunOptions& request, const run::Sinks& sinks) override;

  const cpds::CpdsOptions& options() const { return options_; }
  cpds::CpdsOptions& options() { return options_; }

 private:
  cpds::CpdsOptions options_;
};

}  // namespace druba::front
