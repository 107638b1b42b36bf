// scalewall/platform/staged_output.h: an output directory written whole or not at all.
//
// The files go into a staging directory beside the target ("DIR/.." holds ".DIR.scalewall-
// report-<pid>") and are moved into place only by commit(), so an output that fails halfway
// leaves nothing half-made: the target is untouched (or not created) and the staging
// directory is removed when the StagedOutput goes out of scope, or when the process is
// stopped by SIGTERM, SIGINT or SIGHUP (a handler removes it and the process then ends by the
// same signal). A staging directory that a crashed or killed run left behind (its name holds
// the target's name and the PID of the run that made it) is removed by the next StagedOutput
// for the same target once that process no longer runs.
#ifndef SCALEWALL_STAGED_OUTPUT_H_
#define SCALEWALL_STAGED_OUTPUT_H_

#include <filesystem>
#include <string>
#include <vector>

namespace scalewall {

class StagedOutput {
 public:
  // Creates the target's parent directories and the staging directory. Throws InputError
  // ("the output directory is empty") when `dir` is empty, and OutputError ("cannot create
  // directory 'DIR': ...", "cannot write in directory 'PARENT': ...") when it is a file or
  // cannot be created or written in: a failed write, exit status 1.
  explicit StagedOutput(const std::string& dir);
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  ~StagedOutput();

  const std::filesystem::path& staging() const { return staging_; }
  // The directory the files end in, normalised ("out/" is "out").
  const std::filesystem::path& target() const { return target_; }
  // The directory as the caller named it ("." stays "."): messages name files under it.
  const std::filesystem::path& named() const { return named_; }

  // Moves everything into the target: the whole staging directory when the target does not
  // exist (or is empty), else file by file with `last` (the page) moved after every other.
  // Throws InputError (refuse_output_over_inputs, output_file.h) when a staged file would
  // replace one of `inputs` or a file the run read, before anything is moved, naming it as
  // named()/NAME; and OutputError ("cannot move 'F' into 'DIR': ...") when a move fails.
  void commit(const std::string& last, const std::vector<std::string>& inputs);

 private:
  std::filesystem::path named_;
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool watched_ = false;  // the signal handler knows staging_
};

}  // namespace scalewall

#endif  // SCALEWALL_STAGED_OUTPUT_H_
