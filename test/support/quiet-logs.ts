// Tests run with the logger silent unless LOG_LEVEL says otherwise (test/observability reads lines itself).
process.env.LOG_LEVEL ??= 'silent';
