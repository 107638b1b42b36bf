// Implementation of scalewall/platform/staged_output.h.
#include "scalewall/platform/staged_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include "scalewall/base/error.h"
#include "scalewall/platform/output_file.h"

namespace scalewall {

namespace fs = std::filesystem;

namespace {

// "out/" -> "out"; ".", ".." and "" made absolute first, so the target has a name.
fs::path normal_target(const std::string& dir) {
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  if (target.empty() || target.filename() == "." || target.filename() == "..") {
    target = fs::absolute(fs::path(dir)).lexically_normal();
    if (target.filename().empty()) target = target.parent_path();
  }
  return target;
}

}  // namespace

StagedOutput::StagedOutput(const std::string& dir) {
  if (dir.empty()) throw InputError("the output directory is empty");
  target_ = normal_target(dir);
  std::error_code ec;
  if (fs::exists(target_, ec) && !fs::is_directory(target_, ec)) {
    throw OutputError(fmt::format("cannot create directory '{}': {}", dir,
                                  "a file of that name is in the way"));
  }
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent)) {
    throw OutputError(fmt::format("cannot create directory '{}': {}", dir,
                                  ec ? ec.message() : "a file of that name is in the way"));
  }
  staging_ = parent / fmt::format(".{}.scalewall-report-{}", target_.filename().string(),
                                  ::getpid());
  fs::remove_all(staging_, ec);
  if (!fs::create_directory(staging_, ec) || ec) {
    throw OutputError(fmt::format("cannot write in directory '{}': {}", parent.string(),
                                  ec ? ec.message() : "cannot create a staging directory"));
  }
}

StagedOutput::~StagedOutput() {
  std::error_code ignored;
  if (!staging_.empty()) fs::remove_all(staging_, ignored);
}

void StagedOutput::commit(const std::string& last, const std::vector<std::string>& inputs) {
  for (const auto& entry : fs::directory_iterator(staging_)) {
    refuse_output_over_inputs((target_ / entry.path().filename()).string(), inputs);
  }
  std::error_code ec;
  if (!fs::exists(target_, ec) || fs::is_empty(target_, ec)) {
    if (fs::exists(target_, ec)) fs::remove(target_, ec);
    fs::rename(staging_, target_, ec);
    if (!ec) {
      staging_.clear();
      return;
    }
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(staging_)) {
    if (entry.path().filename() != last) files.push_back(entry.path());
  }
  files.push_back(staging_ / last);
  for (const fs::path& f : files) {
    fs::rename(f, target_ / f.filename(), ec);
    if (ec) {
      throw OutputError(fmt::format("cannot move '{}' into '{}': {}", f.filename().string(),
                                    target_.string(), ec.message()));
    }
  }
}

}  // namespace scalewall
