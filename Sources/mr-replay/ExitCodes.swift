/// The process exit codes, shown in `--help` and documented in the README.
enum ExitCodes {
    static let help = """
        Exit codes:
          0   everything delivered (validate: all lines valid)
          1   completed, but some events were dead-lettered (dry run: some would be; validate: some lines invalid)
          2   usage or config error, or an s3:// bucket or key that does not exist; nothing was sent
          3   the destination refused the run: it answered 401, 403 or 404 (credentials or path), or TLS
              failed in a way a retry cannot fix (its certificate is not trusted, or it refused the
              client certificate); or an S3 store refused an s3:// input (403, bad or no credentials);
              checkpoint kept
          75  interrupted (SIGINT/SIGTERM), stopped on transient failures (the destination's or an S3
              store's) or a local failure (e.g. disk full); a re-run resumes
        """
}
