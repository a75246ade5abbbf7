package dev.memstack.builtin.workspace;

/** A workspace file name that the path sandbox refuses; the message says why. */
public final class InvalidWorkspacePathException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String problem;

  public InvalidWorkspacePathException(String problem) {
    super("filename " + problem);
    this.problem = problem;
  }

  /** What is wrong, without the leading argument name. */
  public String problem() {
    return problem;
  }
}
