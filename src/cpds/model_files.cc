// Reading a CPDS model's files (reader.h: ReadModelFiles): what `druba` and the checker both read.
#include <filesystem>
#include <string>

#include "common/digest.h"
#include "common/files.h"
#include "cpds/reader.h"

namespace druba::cpds {

ModelFiles ReadModelFiles(const std::string& path, const std::string& init, const std::string& spec,
                          const std::string& target) {
  ModelFiles out;
  const std::string pds_text = ReadFile(path);
  out.cpds = ParsePds(pds_text, path, &out.warnings);
  const std::string init_path =
      init.empty() ? std::filesystem::path(path).replace_extension(".init").string() : init;
  const std::string init_text = ReadFile(init_path);
  out.init = ParseInit(init_text, init_path, out.cpds);
  std::string target_source;
  if (!spec.empty()) {
    target_source = ReadFile(spec);
    out.target = ParseTarget(target_source, spec, out.cpds);
    out.target_text = spec;
  } else if (!target.empty()) {
    target_source = target;
    out.target = ParseTarget(target, "--target", out.cpds);
    out.target_text = target;
  }
  out.digest = ContentDigest({pds_text, init_text, target_source});
  return out;
}

}  // namespace druba::cpds
