// Generated from the API's OpenAPI document by openapi-typescript: do not edit.
// `node --import tsx ops/render-console-types.ts` rewrites it; test/unit/console/openapi-types.unit.spec.ts fails
// when it is out of step with the document.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service health */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console sessions this browser holds
         * @description A missing or ended session is null, and an ended one has its cookie cleared. 401 only for a request with two session cookies of one kind (one was set by another page on this host): `sessionCookie` is `duplicated`, nothing is used or cleared.
         */
        get: operations["getConsoleSessions"];
        put?: never;
        /**
         * Sign in to the console
         * @description Trades a tenant API key (apiKey), the admin credential (adminKey) or the analysts' key (analystKey, ANALYST_KEY) for a session cookie: `cl_tenant_session`, `cl_operator_session` or `cl_analyst_session` (named `__Host-cl_…` when PUBLIC_BASE_URL is https), HttpOnly, SameSite=Strict, Path=/, Secure under https. A request carrying two cookies of one kind is refused (401, `sessionCookie: duplicated`). The cookie holds a random session id, never the key. Requests without an Authorization header then authenticate by it; unsafe ones also send X-CSRF-Token. An analyst session reaches the report routes only.
         */
        post: operations["openConsoleSession"];
        /**
         * Sign out of the console
         * @description Ends the session of that kind on the server and clears its cookie; needs its X-CSRF-Token. Without a live session of that kind there is nothing to end: 204 too.
         */
        delete: operations["closeConsoleSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/oidc/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OpenID providers for console sign-in
         * @description Ids and labels only; never an issuer secret. The sign-in page shows one button per provider.
         */
        get: operations["listConsoleOidcProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/oidc/{providerId}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start signing in with an OpenID provider
         * @description A browser navigation. 302 to the provider's authorization endpoint (authorization code flow, PKCE S256, state, nonce), with the flow sealed in the `cl_oidc_flow` cookie (HttpOnly, SameSite=Lax, Path=/console/oidc, 10 minutes). The provider redirects back to /console/oidc/%7BproviderId%7D/callback under PUBLIC_BASE_URL. When the provider is unknown or unreachable: 303 to /console/sign-in?error=<code>. Codes: `oidc_unknown_provider`: No OpenID provider with this id is configured. `oidc_state`: The sign-in could not be matched to one started in this browser (missing, expired or forged state). `oidc_denied`: The OpenID provider did not sign the person in (cancelled, or refused by the provider). `oidc_provider`: The OpenID provider could not be reached or gave an answer that failed validation. `oidc_no_mapping`: The person signed in, but no mapping of this provider grants them a tenant.
         */
        get: operations["startConsoleOidcSignIn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/oidc/{providerId}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Finish signing in with an OpenID provider
         * @description Where the provider sends the browser back (a browser navigation). Checks the state against the `cl_oidc_flow` cookie, exchanges the code with the PKCE verifier, validates the ID token (signature, issuer, audience, nonce, expiry), maps the configured claim to a tenant and scopes, and opens a tenant console session: 303 to /console/captures with the tenant session cookie (as POST /console/session sets it; GET /console/session then gives its CSRF token). Any refusal: 303 to /console/sign-in?error=<code>, logged, no session. Codes: `oidc_unknown_provider`: No OpenID provider with this id is configured. `oidc_state`: The sign-in could not be matched to one started in this browser (missing, expired or forged state). `oidc_denied`: The OpenID provider did not sign the person in (cancelled, or refused by the provider). `oidc_provider`: The OpenID provider could not be reached or gave an answer that failed validation. `oidc_no_mapping`: The person signed in, but no mapping of this provider grants them a tenant.
         */
        get: operations["finishConsoleOidcSignIn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tenant API keys */
        get: operations["listApiKeys"];
        put?: never;
        /** Create a tenant API key */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys/{keyHash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a tenant API key */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List captures */
        get: operations["listCaptures"];
        put?: never;
        /** Submit a capture */
        post: operations["submitCapture"];
        delete?: never;
        /** CORS preflight for POST /v1/captures */
        options: operations["preflightCapture"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a batch of captures */
        post: operations["submitCaptureBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Poll a capture */
        get: operations["getCaptureStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a completed capture */
        get: operations["getCapture"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/artifacts/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an artifact
         * @description Raw bytes with Content-Disposition: attachment: image/png (screenshots), text/plain (html), application/json (headers), application/wacz+zip. Byte ranges are served (Accept-Ranges: bytes).
         */
        get: operations["getCaptureArtifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the printed page (extension)
         * @description The page printed to PDF when the capture asked for `pdf` (docs/capturing.md, Capture options): application/pdf with Content-Disposition: attachment; byte ranges as for artifacts. An extension: served beside spec 4.8's artifact names, not among them.
         */
        get: operations["getCapturePdf"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the session recording (extension)
         * @description What the browser showed from the start of navigation to the screenshot, when the capture asked for `recordSession` (docs/capturing.md, Capture options), in VP8; its time 0 is captureSettings.sessionRecording.startedAt: video/webm with Content-Disposition: attachment; byte ranges as for artifacts. An extension: served beside spec 4.8's artifact names, not among them.
         */
        get: operations["getCaptureSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/provenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Provenance record of a capture (JSON; HTML with Accept: text/html)
         * @description Requested and final URL with the redirect chain, every connection the egress proxy made (host, connected address, TLS protocol and certificate chain as seen at connect time), browser, viewport, capture settings, times, artifact hashes, signing key; `signature` (bundle hash, signedAt, timestamp) from the bundle. The same record is provenance/provenance.json in the signed WACZ.
         */
        get: operations["getCaptureProvenance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/tsa-certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** CA certificates of the built-in time-stamping authorities */
        get: operations["listTsaCertificates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/signing-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The current signing key */
        get: operations["getSigningKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/signing-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every signing key ever used */
        get: operations["listSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/{captureId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verify a capture bundle */
        get: operations["verifyCapture"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/corroboration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A corroborated capture's corroboration record */
        get: operations["getCaptureCorroboration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/vantages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the vantage points captures can be made from */
        get: operations["listVantages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The certificate of a capture (PDF)
         * @description A PDF stating what was captured and how, the SHA-256 of every artifact, the bundle signature and timestamp, the verification URL (with a QR code) and a declaration for the custodian to sign. Its own Ed25519 signature and RFC 3161 timestamp are attached to it (certificate-signature.json); made once, the same bytes on every request. Where the deployment runs a transparency log it also carries the bundle's leaf index, the first signed checkpoint holding it and the inclusion proof, and is issued only once such a checkpoint is published (503 with Retry-After until then). A member of a corroborated set (options.corroborate) names the set's verdict, the fields that differ, the vantages and the record's hash, and is issued once every member is complete or failed (503 with Retry-After until then).
         */
        get: operations["getCaptureCertificate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify a certificate PDF
         * @description Body: the certificate PDF (Content-Type application/pdf). Checks its attached signature and timestamp with the published keys and TSA certificates, and that the capture and bundle it names are this service's.
         */
        post: operations["verifyCertificate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What changed between two captures */
        get: operations["getCaptureDiff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/diff/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The diff as signed, time-stamped evidence (JSON file), as made by POST
         * @description The diff record (both captures and bundle hashes, the options, the SHA-256 of each part) attested by the service key and time-stamped (RFC 3161); `capture-ledger verify` and the verifier package check it offline (docs/watch.md). Answers what POST made for this pair and options; 404 until then. Reading signs nothing.
         */
        get: operations["getCaptureDiffEvidence"];
        put?: never;
        /**
         * Make the diff as signed, time-stamped evidence (JSON file)
         * @description The diff record (both captures and bundle hashes, the options, the SHA-256 of each part) attested by the service key and time-stamped (RFC 3161); `capture-ledger verify` and the verifier package check it offline (docs/watch.md). Made once per pair and options: signed, time-stamped and recorded in the ledger and the public log; a repeat answers the same bytes. No request body.
         */
        post: operations["makeCaptureDiffEvidence"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/diff/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The certificate of a change between two captures (PDF), as made by POST
         * @description A PDF stating how the page changed between the two captures, signed and time-stamped like a capture certificate (POST /v1/verify/certificate and `capture-ledger verify` check it; docs/watch.md). Answers what POST made for this pair and options; 404 until then. Reading signs nothing.
         */
        get: operations["getCaptureDiffCertificate"];
        put?: never;
        /**
         * Make the certificate of a change between two captures (PDF)
         * @description A PDF stating how the page changed between the two captures, signed and time-stamped like a capture certificate (POST /v1/verify/certificate and `capture-ledger verify` check it; docs/watch.md). Made once per pair and options: signed, time-stamped and recorded in the ledger and the public log; a repeat answers the same bytes. No request body.
         */
        post: operations["makeCaptureDiffCertificate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/captures/{captureId}/diff.png": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The changes between two captures over the newer screenshot (PNG) */
        get: operations["getCaptureDiffImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List schedules */
        get: operations["listSchedules"];
        put?: never;
        /** Create a schedule */
        post: operations["createSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A cron expression's next five runs, UTC */
        get: operations["previewSchedule"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{scheduleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a schedule */
        get: operations["getSchedule"];
        put?: never;
        post?: never;
        /** Delete a schedule */
        delete: operations["deleteSchedule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{scheduleId}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A schedule's runs (extension, docs/watch.md) */
        get: operations["listScheduleRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The authenticated tenant's usage */
        get: operations["getAccountUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/usage/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The authenticated tenant's usage per day of a month */
        get: operations["getAccountUsageDaily"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A tenant's usage in a period */
        get: operations["getTenantUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tenants with their quotas and usage this month */
        get: operations["listTenants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/tenants/{tenantId}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a tenant's configuration */
        get: operations["getTenantConfig"];
        /** Set a tenant's quota overrides and tier */
        put: operations["setTenantConfig"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/reports/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An analyst report, as JSON or CSV
         * @description The admin credential or the analysts' (ANALYST_KEY, the only route it opens), by Bearer or by an operator or analyst console session.
         */
        get: operations["getReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/capacity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Capture capacity: the job backlog, jobs in flight and the bounds */
        get: operations["getCapacity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/checks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The operator checks (audits, log monitor, storage verify) and the last result of each */
        get: operations["listOperatorChecks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/checks/log-monitor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the log monitor's checkpoint and consistency check against this deployment's log now */
        post: operations["runLogMonitorCheck"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/tenants/{tenantId}/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A tenant's retention of stored captures (extension) */
        get: operations["getTenantRetention"];
        /**
         * Set a tenant's retention of stored captures (extension)
         * @description Captures the tenant completes from now on are stored under S3 Object Lock (compliance mode) for `days` days; null returns to RETENTION_DEFAULT_DAYS. Captures stored before keep their dates: lowering the retention answers 200 and applies to future captures only (`appliesTo`, `detail`). Recorded on the ledger (tenant.retention_set) with `by` and `reason`.
         */
        put: operations["setTenantRetention"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/captures/{captureId}/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A capture's retention and legal hold in storage (extension) */
        get: operations["getCaptureRetention"];
        /**
         * Extend a capture's retention (extension)
         * @description Moves the retain-until date of every stored object of the capture. Storage extends it; a shorter date is refused by storage itself (compliance mode), answered 409. Recorded on the ledger (capture.retention_extended) with `by` and `reason`.
         */
        put: operations["extendCaptureRetention"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/captures/{captureId}/legal-hold": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Place or lift a legal hold on a capture (extension)
         * @description Storage holds (or releases) every stored object of the capture (S3 Object Lock legal hold): none can be deleted while held, whatever its retention. Recorded on the ledger (capture.legal_hold_placed / capture.legal_hold_lifted) with `by` and `reason`.
         */
        put: operations["setCaptureLegalHold"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks */
        get: operations["listWebhooks"];
        put?: never;
        /** Register a webhook */
        post: operations["registerWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a webhook (permanent; discards its secret) */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed ping event to a webhook now */
        post: operations["pingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List one of the tenant's webhooks' delivery attempts and dead letters */
        get: operations["listOwnWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List browser profiles */
        get: operations["listProfiles"];
        put?: never;
        /** Create a browser profile from uploaded cookies */
        post: operations["createProfile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{profileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a browser profile */
        get: operations["getProfile"];
        put?: never;
        post?: never;
        /** Delete a browser profile (its sealed contents are dropped for good) */
        delete: operations["deleteProfile"];
        options?: never;
        head?: never;
        /** Rename a browser profile */
        patch: operations["renameProfile"];
        trace?: never;
    };
    "/v1/profiles/{profileId}/contents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace a browser profile's contents (a new version) */
        put: operations["replaceProfileContents"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/browser-sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open a remote browser (to make or refresh a profile) */
        post: operations["openBrowserSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/browser-sessions/{sessionId}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a remote browser (WebSocket)
         * @description A WebSocket (RFC 6455). The service sends each screencast frame as a binary message (JPEG) and JSON text messages {t: viewport|location|refused|ended}; the viewer sends JSON text messages: mouse, wheel, key, text (paste), navigate, back, reload (docs/profiles-remote-browser.md). A second stream of the same session replaces the first.
         */
        get: operations["streamBrowserSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/browser-sessions/{sessionId}/save": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Save a remote browser as a profile, and close it */
        post: operations["saveBrowserSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/browser-sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Close a remote browser without saving */
        delete: operations["closeBrowserSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The archive's lag behind the ledger, and its last segment */
        get: operations["getArchiveStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a webhook's delivery attempts and dead letters */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/webhooks/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook dead letters across tenants, newest first */
        get: operations["listWebhookDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest signed checkpoint (C2SP tlog-checkpoint) */
        get: operations["getLogCheckpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/checkpoint.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest checkpoint with its RFC 3161 timestamp */
        get: operations["getLogCheckpointJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The log's note verifier key */
        get: operations["getLogKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/witnesses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The witnesses this log asks to cosign its checkpoints
         * @description LOG_WITNESSES and LOG_WITNESS_QUORUM as configured (docs/transparency.md, Witnesses). Informational: a relying party pins the witness keys it trusts, from the witnesses themselves.
         */
        get: operations["listLogWitnesses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/tile/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A tile or entries bundle (C2SP tlog-tiles) */
        get: operations["getLogTile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/proof/inclusion": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Inclusion proof of a leaf, by index or by capture ID */
        get: operations["getLogInclusionProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/log/proof/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Consistency proof between two tree sizes */
        get: operations["getLogConsistencyProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "capture.complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event: a capture completed
         * @description What the service POSTs to a registered webhook URL; answer 2xx to acknowledge. Retries and dead letters: docs/webhooks.md.
         */
        post: operations["onCaptureComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "capture.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event: a capture failed
         * @description What the service POSTs to a registered webhook URL; answer 2xx to acknowledge. Retries and dead letters: docs/webhooks.md.
         */
        post: operations["onCaptureFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    ping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event: a ping
         * @description What the service POSTs to a registered webhook URL; answer 2xx to acknowledge. Retries and dead letters: docs/webhooks.md.
         */
        post: operations["onPing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Error body (spec 7.1). */
        Problem: {
            /** @constant */
            type: "about:blank";
            status: number;
            /** @description Short summary of the problem class; clients switch on `status`. */
            title: string;
            /** @description Explanation of this occurrence. */
            detail: string;
            /**
             * @description 429 only (spec 7.3): absent for the per-IP limit, 'tenant', 'quota' or 'schedules'.
             * @enum {string}
             */
            limitType?: "tenant" | "quota" | "schedules";
            /** @description Only with limitType 'quota'. */
            quota?: {
                /** @enum {string} */
                resource: "captures" | "storage";
                limit: number;
                used: number;
                remaining: number;
                /** Format: date-time */
                resetsAt: string;
                /** @description Batch size, on a batch refused whole. */
                requested?: number;
            } & {
                [key: string]: unknown;
            };
            /**
             * @description Extension, on a 401 only: the request carried two console session cookies of one kind (one set by another page on this host), so neither was used.
             * @constant
             */
            sessionCookie?: "duplicated";
            /**
             * @description Extension: on a 409 for a capture still running; ask again after Retry-After seconds.
             * @constant
             */
            captureStatus?: "pending";
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description status 'ok' (spec 4.1). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                        legal: {
                            /** Format: uri */
                            terms: string;
                            /** Format: uri */
                            policy: string;
                        };
                        /** @description Extension: the object storage (S3) as last seen. 'degraded': it does not answer; downloads answer 503 with Retry-After and writes wait, while the service still admits captures, so /health itself stays 200. */
                        storage?: {
                            /** @enum {string} */
                            status: "ok" | "degraded";
                            /** @description Which store: the S3 bucket and endpoint. */
                            store: string;
                            /**
                             * Format: date-time
                             * @description Since when it has not answered.
                             */
                            since?: string;
                            /** @description The last error. */
                            error?: string;
                        };
                    };
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description status 'degraded': NATS or Postgres is unreachable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "degraded";
                        legal: {
                            /** Format: uri */
                            terms: string;
                            /** Format: uri */
                            policy: string;
                        };
                        /** @description Extension: the object storage (S3) as last seen. 'degraded': it does not answer; downloads answer 503 with Retry-After and writes wait, while the service still admits captures, so /health itself stays 200. */
                        storage?: {
                            /** @enum {string} */
                            status: "ok" | "degraded";
                            /** @description Which store: the S3 bucket and endpoint. */
                            store: string;
                            /**
                             * Format: date-time
                             * @description Since when it has not answered.
                             */
                            since?: string;
                            /** @description The last error. */
                            error?: string;
                        };
                    };
                };
            };
        };
    };
    getConsoleSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The live sessions of the cookies sent; null for none or one that has ended (its cookie is cleared). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenant: {
                            tenantId: string;
                            scopes: ("capture" | "read" | "admin")[];
                            /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                            csrfToken: string;
                            /**
                             * Format: date-time
                             * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                             */
                            expiresAt: string;
                        } | null;
                        operator: {
                            /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                            csrfToken: string;
                            /**
                             * Format: date-time
                             * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                             */
                            expiresAt: string;
                        } | null;
                        analyst: {
                            /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                            csrfToken: string;
                            /**
                             * Format: date-time
                             * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                             */
                            expiresAt: string;
                        } | null;
                    };
                };
            };
            /** @description Two session cookies of one kind (sessionCookie: duplicated): neither is used; sign in again, or clear the cookies. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    openConsoleSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Exactly one of apiKey (a tenant session), adminKey (an operator session) and analystKey (an analyst session). */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A tenant API key. */
                    apiKey?: string;
                    /** @description ADMIN_KEY. */
                    adminKey?: string;
                    /** @description ANALYST_KEY: a session that reads the reports only. */
                    analystKey?: string;
                };
            };
        };
        responses: {
            /** @description Signed in; Set-Cookie carries the session cookie. */
            200: {
                headers: {
                    /** @description The console session cookie (HttpOnly; SameSite=Strict; Path=/; Secure under https), or its clearing. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        scopes: ("capture" | "read" | "admin")[];
                        /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                        csrfToken: string;
                        /**
                         * Format: date-time
                         * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        kind: "tenant";
                    } | {
                        /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                        csrfToken: string;
                        /**
                         * Format: date-time
                         * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        kind: "operator";
                    } | {
                        /** @description Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie. */
                        csrfToken: string;
                        /**
                         * Format: date-time
                         * @description When the session ends unless used before (idle timeout, capped by its lifetime).
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        kind: "analyst";
                    };
                };
            };
            /** @description Missing or malformed JSON body, or not exactly one of apiKey, adminKey and analystKey; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid or revoked API key, or an invalid admin or analyst credential. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The key has only the 'admin' scope, which grants nothing in the tenant console. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed sign-ins from this address: charged like failed Bearer keys, or (adminKey, analystKey) like failed admin credentials (5 per 60 s). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description adminKey sent while the admin API is not configured (ADMIN_KEY unset), or analystKey while analyst access is not (ANALYST_KEY unset). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    closeConsoleSession: {
        parameters: {
            query: {
                kind: "tenant" | "operator" | "analyst";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out; Set-Cookie clears the cookie. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description kind is missing or not 'tenant', 'operator' or 'analyst'. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong X-CSRF-Token header: the console sends the token it got at sign-in. Or an Origin other than PUBLIC_BASE_URL's. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConsoleOidcProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenID providers configured (CONSOLE_OIDC_PROVIDERS), in configuration order; empty when none. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Navigate to /console/oidc/{id}/start to sign in with it. */
                            id: string;
                            /** @description The name to show on the sign-in button. */
                            label: string;
                        }[];
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startConsoleOidcSignIn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A provider id from GET /console/oidc/providers. */
                providerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the provider's authorization endpoint; Set-Cookie carries the sealed flow (no body; the target is in Location). */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description To /console/sign-in?error=oidc_unknown_provider or oidc_provider (no body; the target is in Location). */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    finishConsoleOidcSignIn: {
        parameters: {
            query?: {
                /** @description The authorization code. */
                code?: string;
                /** @description The state sent at start. */
                state?: string;
                /** @description The issuer (RFC 9207), checked when sent. */
                iss?: string;
                /** @description The provider refused (e.g. access_denied). */
                error?: string;
                error_description?: string;
            };
            header?: never;
            path: {
                /** @description A provider id from GET /console/oidc/providers. */
                providerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To /console/captures signed in (Set-Cookie: the tenant session cookie), or to /console/sign-in?error=<code>; the flow cookie is cleared either way (no body; the target is in Location). */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                tenant?: string;
                include?: "revoked";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Key records; never raw keys (spec 4.11). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description SHA-256 hex of the raw key; identifies it for revocation. */
                            keyHash: string;
                            tenantId: string;
                            scopes: ("capture" | "read" | "admin")[];
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description Currently always 'admin'. */
                            createdBy: string;
                            /**
                             * @description Present and true when revoked.
                             * @enum {boolean}
                             */
                            revoked?: true;
                            /**
                             * Format: date-time
                             * @description Present only when revoked.
                             */
                            revokedAt?: string;
                        }[];
                    };
                };
            };
            /** @description include is not 'revoked'. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description More than 5 requests in 60 s from this address to the key endpoints (spec 4.11), or 5 failed admin credentials from it in 60 s on any operator route. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tenantId: string;
                    scopes: ("capture" | "read" | "admin")[];
                    name: string;
                };
            };
        };
        responses: {
            /** @description The new key (spec 4.11). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The raw key (svc_live_…); shown only in this response. */
                        key: string;
                        keyHash: string;
                        tenantId: string;
                        scopes: ("capture" | "read" | "admin")[];
                        name: string;
                        /** Format: date-time */
                        createdAt: string;
                        warning: string;
                    };
                };
            };
            /** @description Invalid tenantId, scopes or name; the detail names the field (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description A key with this hash already exists. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description More than 5 requests in 60 s from this address to the key endpoints (spec 4.11), or 5 failed admin credentials from it in 60 s on any operator route. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 64 hex characters (spec 4.11). */
                keyHash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revocation record; the same on a repeat (spec 3.2). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description SHA-256 hex of the raw key; identifies it for revocation. */
                        keyHash: string;
                        tenantId: string;
                        scopes: ("capture" | "read" | "admin")[];
                        name: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** @description Currently always 'admin'. */
                        createdBy: string;
                        /** @enum {boolean} */
                        revoked: true;
                        /** Format: date-time */
                        revokedAt: string;
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No key with this keyHash. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description More than 5 requests in 60 s from this address to the key endpoints (spec 4.11), or 5 failed admin credentials from it in 60 s on any operator route. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCaptures: {
        parameters: {
            query?: {
                /** @description Page size; default 20, above 100 clamped to 100. */
                limit?: number;
                /** @description Zero-based; default 0. */
                offset?: number;
                status?: "pending" | "complete" | "failed";
                /** @description Prefix match on the captured URL. */
                url?: string;
                /** @description Inclusive lower bound. */
                created_after?: string;
                /** @description Exclusive upper bound; after created_after when both are given. */
                created_before?: string;
                sort?: "created_at" | "-created_at";
                /** @description Only captures run by this schedule. */
                schedule_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's captures (spec 4.2). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Never null; empty when none. */
                        data: {
                            /** @description Capture identifier (cap_…); also the access secret. */
                            id: string;
                            /** @enum {string} */
                            status: "pending" | "complete" | "failed";
                            /** Format: uri */
                            url: string;
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description Present when status is 'complete'.
                             */
                            completedAt?: string;
                            /**
                             * @description Present when status is 'complete'.
                             * @enum {string}
                             */
                            renderQuality?: "full" | "partial";
                            /**
                             * Format: date-time
                             * @description Present when status is 'failed'.
                             */
                            failedAt?: string;
                            /** @description Present when status is 'failed'; human-readable reason. */
                            error?: string;
                            /** @description Present when status is 'failed'; true if a new capture may succeed. */
                            retryable?: boolean;
                            /**
                             * @description Present when 'failed' (on failures recorded since reasons were): the class of `error` — the page's (target_timeout, target_unreachable, target_refused, blocked), the egress policy's (egress_refused), the vantage point's (vantage_unavailable: it did not answer or exits elsewhere; never made directly instead), the browser profile's (profile_unavailable: deleted before the capture ran; never made signed out instead) or, when it could not be avoided, the service's (browser_crashed, service_overloaded). docs/api.md, Failure reasons.
                             * @enum {string}
                             */
                            failureReason?: "target_timeout" | "target_unreachable" | "target_refused" | "blocked" | "browser_crashed" | "service_overloaded" | "egress_refused" | "vantage_unavailable" | "profile_unavailable";
                        }[];
                        pagination: {
                            /** @description Matches before paging. */
                            total: number;
                            offset: number;
                            hasMore: boolean;
                            /** @description Effective page size. */
                            limit: number;
                        };
                    };
                };
            };
            /** @description Invalid list parameter; the detail names it (spec 4.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Database read failed while listing captures (spec 7.2). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Required configuration missing or the service is at capacity (spec 7.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    submitCapture: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Absolute http(s) URL of a public page (spec 4.3).
                     */
                    url: string;
                    /** @description Capture options (absent: the defaults). Recorded in captureSettings and in the signed bundle. */
                    options?: {
                        /** @description Browser window size; default 1280×800. */
                        viewport?: {
                            /** @description CSS pixels */
                            width: number;
                            /** @description CSS pixels */
                            height: number;
                        };
                        /** @description Default 1. */
                        deviceScaleFactor?: number;
                        /** @description Default true; false: the screenshot shows the viewport only. */
                        fullPage?: boolean;
                        /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                        waitForSelector?: string;
                        /** @description Extra wait after the settle phase; default 0. */
                        delayMs?: number;
                        /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                        pdf?: boolean;
                        /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                        behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                        /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                        behaviorTimeout?: number;
                        /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                        recordSession?: boolean;
                        /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                        vantage?: string;
                        /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                        corroborate?: 2 | 3;
                        /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                        profile?: string;
                        /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                        recordBoxes?: string[];
                        /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                        recordTextBoxes?: string[];
                    };
                };
            };
        };
        responses: {
            /** @description Accepted (spec 4.3). Headers X-Quota-Limit, X-Quota-Used, X-Quota-Remaining carry the monthly quota (spec 8.2). Location is the status URL. */
            202: {
                headers: {
                    /** @description The tenant's monthly capture quota (spec 8.2). */
                    "X-Quota-Limit"?: number;
                    /** @description Captures counted this month, this submission included (spec 8.2). */
                    "X-Quota-Used"?: number;
                    /** @description Captures left this month (spec 8.2). */
                    "X-Quota-Remaining"?: number;
                    /** @description Absolute URL of the resource this answer is about. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /**
                         * Format: uri
                         * @description Absolute URL of the status endpoint.
                         */
                        statusUrl: string;
                        note: string;
                        /** @description Extension: with options.corroborate, every member capture; `id` is the first. */
                        corroboration?: {
                            id: string;
                            /**
                             * Format: uri
                             * @description Where the corroboration record is served once every member is done.
                             */
                            url: string;
                            members: {
                                id: string;
                                vantage: string;
                                /** Format: uri */
                                statusUrl: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Missing or malformed JSON body, missing url, invalid URL scheme, or a bad option; the detail names it (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The URL resolves to a private address, embeds credentials or is double-encoded (spec 7.2). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (limitType absent or 'tenant') or the monthly quota is used up (limitType 'quota'; spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The service is at capacity; Retry-After says when to retry (spec 7.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    preflightCapture: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The origin is on CORS_ORIGINS; the Access-Control-* headers allow the POST (spec 4.4). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The origin is not allowed; no CORS headers (spec 4.4). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    submitCaptureBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Items {url, options?}; options as on POST /v1/captures. Each item is checked on its own (207): a bad option gives that item a 400 naming urls[i].options.<field>. */
                    urls: {
                        /** Format: uri */
                        url: string;
                        /** @description Capture options (absent: the defaults). Recorded in captureSettings and in the signed bundle. */
                        options?: {
                            /** @description Browser window size; default 1280×800. */
                            viewport?: {
                                /** @description CSS pixels */
                                width: number;
                                /** @description CSS pixels */
                                height: number;
                            };
                            /** @description Default 1. */
                            deviceScaleFactor?: number;
                            /** @description Default true; false: the screenshot shows the viewport only. */
                            fullPage?: boolean;
                            /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                            waitForSelector?: string;
                            /** @description Extra wait after the settle phase; default 0. */
                            delayMs?: number;
                            /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                            pdf?: boolean;
                            /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                            behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                            /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                            behaviorTimeout?: number;
                            /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                            recordSession?: boolean;
                            /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                            vantage?: string;
                            /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                            corroborate?: 2 | 3;
                            /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                            profile?: string;
                            /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                            recordBoxes?: string[];
                            /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                            recordTextBoxes?: string[];
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Per-item results (spec 4.4). Headers X-Quota-Limit, X-Quota-Used, X-Quota-Remaining carry the monthly quota (spec 8.2). */
            207: {
                headers: {
                    /** @description The tenant's monthly capture quota (spec 8.2). */
                    "X-Quota-Limit"?: number;
                    /** @description Captures counted this month, this submission included (spec 8.2). */
                    "X-Quota-Used"?: number;
                    /** @description Captures left this month (spec 8.2). */
                    "X-Quota-Remaining"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Same length and order as the input. */
                        items: ({
                            /** @enum {number} */
                            status: 202;
                            url: string;
                            id: string;
                            /** Format: uri */
                            statusUrl: string;
                        } | {
                            status: number;
                            url: string;
                            error: components["schemas"]["Problem"];
                        })[];
                        summary: {
                            total: number;
                            accepted: number;
                            failed: number;
                        };
                    };
                };
            };
            /** @description Invalid batch structure: missing or empty urls, or more URLs than the configured maximum (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited, or the batch needs more captures than the monthly quota has left (limitType 'quota' with quota.requested; spec 8.2). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The service is at capacity; Retry-After says when to retry (spec 7.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Capture status record (spec 2.2). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "pending" | "complete" | "failed";
                        /**
                         * Format: uri
                         * @description Present when 'complete'; URL of the full capture record.
                         */
                        captureUrl?: string;
                        /** @description Present when 'failed'. */
                        error?: string;
                        /** @description Present when 'failed'. */
                        retryable?: boolean;
                        /**
                         * @description Present when 'failed' (on failures recorded since reasons were): the class of `error` — the page's (target_timeout, target_unreachable, target_refused, blocked), the egress policy's (egress_refused), the vantage point's (vantage_unavailable: it did not answer or exits elsewhere; never made directly instead), the browser profile's (profile_unavailable: deleted before the capture ran; never made signed out instead) or, when it could not be avoided, the service's (browser_crashed, service_overloaded). docs/api.md, Failure reasons.
                         * @enum {string}
                         */
                        failureReason?: "target_timeout" | "target_unreachable" | "target_refused" | "blocked" | "browser_crashed" | "service_overloaded" | "egress_refused" | "vantage_unavailable" | "profile_unavailable";
                    };
                };
            };
            /** @description Unknown capture (spec 4.6). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCapture: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Capture record (spec 2.3). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "complete";
                        /** Format: uri */
                        url: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        completedAt: string;
                        /** @enum {string} */
                        renderQuality: "full" | "partial";
                        /**
                         * Format: uri
                         * @description Extension: where the page was when it was captured, after redirects and client-side route changes; absent on older captures.
                         */
                        finalUrl?: string;
                        /** @description Rendering metadata, present on newer captures. */
                        render?: {
                            /** @enum {string} */
                            waitUntilReached: "domcontentloaded" | "load" | "networkidle";
                            timedOut: boolean;
                            durationMs: number;
                            settleMs?: number;
                            /** @enum {string} */
                            settleReason?: "idle" | "cap";
                            /** @description Per-stage timing breakdown. */
                            stages?: {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                        artifacts: {
                            /** Format: uri */
                            screenshot: string;
                            /**
                             * Format: uri
                             * @description Present only when consent was detected and dismissed.
                             */
                            screenshotBefore?: string;
                            /** Format: uri */
                            html: string;
                            /** Format: uri */
                            headers?: string;
                            /**
                             * Format: uri
                             * @description Present when the capture asked for `pdf`.
                             */
                            pdf?: string;
                            /**
                             * Format: uri
                             * @description Present when the capture asked for `recordSession`: the WebM of the session (extension).
                             */
                            session?: string;
                        };
                        /** @description The signed bundle; present when a signing key was configured and the capture is not partial. */
                        wacz?: {
                            /** Format: uri */
                            url: string;
                            /** @description sha256:<hex> */
                            bundleHash: string;
                            size: number;
                        };
                        /**
                         * Format: uri
                         * @description Present only when `wacz` is present.
                         */
                        verifyUrl?: string;
                        /** @description Settings recorded for the capture (consent handling, viewport, options). */
                        captureSettings?: {
                            /** @description Schema version. */
                            version: number;
                            /** @description Present when consent opt-out was attempted. */
                            consent?: {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                        /** @description Extension: present when the capture is a member of a corroborated set (options.corroborate). */
                        corroboration?: {
                            id: string;
                            /**
                             * Format: uri
                             * @description GET it for the corroboration record.
                             */
                            url: string;
                        };
                        /** @description Present once the bundle is in the transparency log. */
                        transparency?: {
                            /** @description The bundle's leaf in the public log (docs/transparency.md). */
                            leafIndex: number;
                            /** @description The latest signed checkpoint covering it; null until one is published. */
                            checkpoint: string | null;
                        };
                    };
                };
            };
            /** @description Unknown capture, or not complete yet (spec 4.7). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureArtifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
                /** @description screenshot, screenshot-before, html, headers or wacz (spec 4.8); any other name is 404. The printed page is at /v1/captures/{captureId}/pdf, the session recording at /v1/captures/{captureId}/session. */
                name: "screenshot" | "screenshot-before" | "html" | "headers" | "wacz";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The artifact (spec 4.8). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                    "text/plain": string;
                    "application/json": string;
                    "application/wacz+zip": string;
                };
            };
            /** @description The requested byte range (Content-Range). */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                    "text/plain": string;
                    "application/json": string;
                    "application/wacz+zip": string;
                };
            };
            /** @description With S3_PRESIGNED_DOWNLOADS=true: Location is a short-lived presigned link into object storage, which answers as 200/206 here would (same bytes, Content-Type, Content-Disposition, ranges). */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unknown capture, unknown artifact name, or no such artifact (spec 4.8). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The byte range cannot be satisfied (Content-Range: bytes *\/size); no body. */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Object storage is unavailable; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCapturePdf: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The printed page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description The requested byte range (Content-Range). */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description With S3_PRESIGNED_DOWNLOADS=true: Location is a short-lived presigned link into object storage, which answers as 200/206 here would (same bytes, Content-Type, Content-Disposition, ranges). */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unknown capture, or one captured without `pdf`. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The byte range cannot be satisfied (Content-Range: bytes *\/size); no body. */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Object storage is unavailable; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session recording. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "video/webm": string;
                };
            };
            /** @description The requested byte range (Content-Range). */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "video/webm": string;
                };
            };
            /** @description With S3_PRESIGNED_DOWNLOADS=true: Location is a short-lived presigned link into object storage, which answers as 200/206 here would (same bytes, Content-Type, Content-Disposition, ranges). */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unknown capture, or one captured without `recordSession`. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The byte range cannot be satisfied (Content-Range: bytes *\/size); no body. */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Object storage is unavailable; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureProvenance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provenance record; a readable page with Accept: text/html. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        provenanceVersion: number;
                        captureId: string;
                        requestedUrl: string;
                        finalUrl: string;
                        redirectChain: {
                            url: string;
                            status: number | null;
                            location?: string;
                        }[];
                        mainDocumentStatus: number;
                        /** @enum {string} */
                        renderQuality: "full" | "partial";
                        /** Format: date-time */
                        submittedAt: string;
                        /** Format: date-time */
                        startedAt: string;
                        /** Format: date-time */
                        completedAt: string;
                        browser: {
                            name: string;
                            version: string;
                            userAgent: string;
                        };
                        viewport: {
                            width: number;
                            height: number;
                            deviceScaleFactor: number;
                        };
                        captureSettings: {
                            [key: string]: unknown;
                        };
                        /** @description Every connection the egress proxy made for hosts this page used. */
                        connections: {
                            host: string;
                            port: number;
                            /** @description The address connected to, after the address policy checked it. */
                            address: string;
                            /** @enum {string} */
                            via: "tunnel" | "http";
                            /** Format: date-time */
                            connectedAt: string;
                            /** @description TLS protocol and certificate chain as seen at connect time; null when the server did not speak TLS. */
                            tls?: unknown;
                            tlsError?: string;
                        }[];
                        artifacts: {
                            name: string;
                            mediaType: string;
                            /** @description sha256:<hex> */
                            hash: string;
                            bytes: number;
                        }[];
                        /** @description Extension: per host of the page, the DNS answers the resolver gave (type, addresses, TTL, servers), or that it was an IP literal or localhost. */
                        dns?: {
                            /** @enum {string} */
                            source: "resolver" | "ip-literal" | "localhost";
                            name: string;
                            /** @enum {string} */
                            type?: "A" | "AAAA";
                            addresses: {
                                address: string;
                                ttl: number | null;
                            }[];
                            /** @description The DNS servers asked. */
                            resolver?: string[];
                            /** Format: date-time */
                            answeredAt?: string;
                            error?: string;
                        }[];
                        /** @description Extension: the vantage point the capture was made from, and the exit address observed. */
                        vantage?: {
                            id: string;
                            label: string;
                            region: string;
                            exit: {
                                /** @description null: not observed (the vantage has no exit probe). */
                                observedAddress: string | null;
                                /** @enum {string} */
                                method: "exit-probe" | "not observed";
                                probeUrl: string | null;
                                observedAt: string | null;
                                expectedAddress: string | null;
                            };
                        };
                        /** @description Extension: the worker process that rendered it, a random id per process (wrk_…). */
                        worker?: string;
                        signing?: {
                            /** @enum {string} */
                            algorithm: "Ed25519";
                            keyId: string;
                            signatureIn: string;
                        };
                        /** @description Extension: storage keeps the capture's objects, bundle included, undeletable until retainUntil (S3 Object Lock, compliance mode). Absent: no retention. */
                        retention?: {
                            /** @enum {string} */
                            mode: "compliance";
                            /** Format: date-time */
                            retainUntil: string;
                            /** @enum {string} */
                            storage: "S3 Object Lock";
                        };
                        notes: string[];
                        /** @description From the bundle's datapackage-digest.json, when there is a bundle. */
                        signature?: {
                            bundleHash: string;
                            keyId: string;
                            /** Format: date-time */
                            signedAt: string;
                            timestamp: {
                                /** Format: date-time */
                                genTime: string;
                                tsa: string;
                            } | null;
                        };
                    };
                    "text/html": string;
                };
            };
            /** @description Unknown capture, not complete, or completed before records were kept. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTsaCertificates: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CA certificates (PEM) a timestamp of this service may chain to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificates: {
                            fingerprint: string;
                            /** Format: date-time */
                            publishedAt: string;
                            pem: string;
                        }[];
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSigningKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current key (spec 4.10). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        algorithm: "Ed25519";
                        /** @description Base64 of the 32-byte public key. */
                        publicKey: string;
                        /** @description First 8 hex characters of SHA-256 of the raw public key. */
                        keyId: string;
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No signing key is configured on this deployment (spec 4.10). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description All historical keys including the current one (spec 4.10). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: {
                            keyId: string;
                            /** @enum {string} */
                            algorithm: "Ed25519";
                            publicKey: string;
                            /**
                             * Format: date-time
                             * @description When the key was first archived.
                             */
                            archivedAt: string;
                        }[];
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The service is unavailable (spec 4.10). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    verifyCapture: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id> */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verification result as JSON (spec 2.6), the default for every client that does not prefer text/html; with Accept: text/html (a browser) the page that fetches it (spec 4.9). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description True only when all checks pass or skip. */
                        verified: boolean;
                        capture: {
                            id: string;
                            /** @description Extension: the URL that was captured (as submitted). */
                            url: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            completedAt: string;
                            /** @enum {string} */
                            renderQuality?: "full" | "partial";
                        };
                        /** @description Null when the bundle or its digest document is not found. */
                        signing: {
                            bundleHash: string;
                            /** @description Base64. */
                            signature: string;
                            /** @description Base64. */
                            publicKey: string;
                            keyId: string;
                            /** Format: date-time */
                            signedAt: string;
                            /** @description RFC 3161 timestamp (v0.2.0 bundles); null on v0.1.0 bundles. */
                            timestamp: {
                                /** Format: date-time */
                                genTime: string;
                                /** Format: uri */
                                tsa: string;
                                /** @description From this service's built-in TSA. */
                                selfIssued?: boolean;
                            } | null;
                        } | null;
                        /** @description In order: artifactHashes, bundleHash, signature, and (v0.2.0 bundles only) timestamp: 3 checks for v0.1.0 bundles, up to 4 for v0.2.0 (spec 2.6). Nothing else: the transparency log has its own field. */
                        checks: {
                            /** @enum {string} */
                            name: "artifactHashes" | "bundleHash" | "signature" | "timestamp";
                            /** @enum {string} */
                            status: "pass" | "fail" | "skip";
                            detail?: string;
                        }[];
                        /** @description Settings recorded for the capture (consent handling, viewport, options). */
                        captureSettings?: {
                            /** @description Schema version. */
                            version: number;
                            /** @description Present when consent opt-out was attempted. */
                            consent?: {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                        /** @description Extension (not in spec 2.6; docs/transparency.md): the bundle's leaf in the public transparency log, checked against a signed checkpoint (docs/transparency.md). Present when the deployment runs the log. Not part of `verified`. */
                        transparency?: {
                            /**
                             * @description 'skip' when bundleHash failed or the log has no proof for the bundle yet.
                             * @enum {string}
                             */
                            status: "pass" | "fail" | "skip";
                            detail: string;
                            leafIndex?: number;
                            /** @description The signed checkpoint (C2SP signed note) the proof is against. */
                            checkpoint?: string;
                            /** @description Base64 hashes, leaf to root. */
                            inclusionProof?: string[];
                            /** @description The log's note verifier key. */
                            logKey?: string;
                        };
                        /** @description Extension (not in spec 2.6; docs/transparency.md, Witnesses): whether `transparency.checkpoint` is cosigned by a quorum of the log's witnesses (LOG_WITNESSES, LOG_WITNESS_QUORUM). Present when the deployment has witnesses and a checkpoint covers the bundle. Not part of `verified`. */
                        witnesses?: {
                            /**
                             * @description 'fail': fewer than `quorum` of the log's witnesses cosigned.
                             * @enum {string}
                             */
                            status: "pass" | "fail";
                            quorum: number;
                            /** @description The witnesses whose cosignature on the checkpoint verifies under their published key. */
                            witnessed: {
                                name: string;
                                keyId: string;
                                /** Format: date-time */
                                cosignedAt: string;
                            }[];
                            /** @description The witnesses that did not cosign it. */
                            missing: string[];
                            treeSize: number | null;
                            detail: string;
                        };
                    };
                    "text/html": string;
                };
            };
            /** @description Unknown capture, or one without a signed bundle (not complete, partial, no signing key; spec 4.9). For a capture still pending the detail says so and Retry-After says when to ask again. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The bundle exceeds the maximum verifiable size (spec 4.9). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The service is unavailable (spec 4.9). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureCorroboration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: pending until every member is complete or failed, then the signed record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "pending" | "complete";
                        /** @description The set (cor_…). */
                        id: string;
                        /** @description When 'complete': the comparison (docs/evidence.md, Corroborated captures). */
                        record?: unknown;
                        /** @description sha256: of the RFC 8785 bytes of `record`. */
                        recordHash?: string;
                        /** @description Ed25519 by the signing key, over the corroboration message. */
                        signature?: unknown;
                        /** @description RFC 3161 token over recordHash. */
                        timestamp?: unknown;
                        url?: string;
                        /** @description When 'pending': each member and its status. */
                        members?: unknown[];
                    };
                };
            };
            /** @description Unknown capture, or not a member of a corroborated set. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listVantages: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: configured vantages, without the addresses or credentials of their proxies. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        vantages: {
                            /** @description What `options.vantage` names. */
                            id: string;
                            label: string;
                            /** @description ISO 3166-1 country, or ISO 3166-2 subdivision (DE, US-CA). */
                            region: string;
                            /**
                             * @description How the worker reaches the vantage's proxy.
                             * @enum {string}
                             */
                            upstreamKind: "http-connect" | "socks5";
                            /** @description The address the vantage is configured to exit from; a capture exiting elsewhere fails. */
                            expectedExit: string | null;
                            /** @description Whether each capture observes its exit address (an exit probe is configured); false: "not observed". */
                            exitObserved: boolean;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureCertificate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id>; the access secret (spec 5.4). */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate, application/pdf. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description Unknown capture, failed, or without a signed bundle. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The capture is still pending (`captureStatus: pending` in the body); ask again after Retry-After seconds. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No signer answered, the bundle is not in a published transparency-log checkpoint yet, or the capture's corroborated set is pending; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    verifyCertificate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The certificate PDF, as downloaded from GET /v1/captures/{captureId}/certificate. At most 1048576 bytes (1024 KiB); larger is 413. */
        requestBody: {
            content: {
                "application/pdf": unknown;
            };
        };
        responses: {
            /** @description Verification of a certificate PDF; 200 also when it fails. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description True only when no check failed. */
                        verified: boolean;
                        /** @enum {string} */
                        kind: "certificate";
                        /** @description What the attached envelope says, shown only when the signature by a published key verifies; null otherwise. A field no passing check covers is null, never repeated. */
                        certificate: {
                            captureId: string;
                            bundleHash: string;
                            /** @description null unless the signed document states its SHA-256 (the url check) or, for a document that does not, the PDF signature holds. */
                            url: string | null;
                            certificateHash: string;
                        } | null;
                        signing: {
                            keyId: string;
                            publicKey: string;
                            signature: string;
                            /** @description null unless the PDF signature holds (the only check covering it). */
                            signedAt: string | null;
                            /** @description null unless the timestamp check passed. */
                            timestamp: {
                                genTime: string;
                                /** @description null unless the PDF signature holds (the only check covering it). */
                                tsa: string | null;
                                selfIssued?: boolean;
                            } | null;
                        } | null;
                        /** @description In order: envelope, certificateHash, signature, timestamp, url (when the signed document states the URL's SHA-256), transparency (only when the certificate carries a transparency-log proof: checked against this log's key), pdfSignature (skipped for a certificate issued without one), then capture (the capture and bundle it names are this service's). */
                        checks: {
                            name: string;
                            /** @enum {string} */
                            status: "pass" | "fail" | "skip";
                            detail?: string;
                        }[];
                    };
                };
            };
            /** @description The body is empty. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than 1024 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/pdf. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureDiff: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What changed between two captures (docs/watch.md). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        base: {
                            captureId: string;
                            url: string;
                            completedAt: string;
                            bundleHash: string | null;
                        };
                        capture: {
                            captureId: string;
                            url: string;
                            completedAt: string;
                            bundleHash: string | null;
                        };
                        /** @description False when the two captures are of different URLs. */
                        sameUrl: boolean;
                        options: {
                            ignoreSelectors: string[];
                            ignoreText: string[];
                        };
                        /** @description Any part changed (volatile headers aside). */
                        changed: boolean;
                        /** @description Counts and ratios of each part: what a watch compares with its thresholds. */
                        summary: Record<string, never>;
                        /** @description Visible text, block by block; null when a capture has no HTML. */
                        text: Record<string, never>;
                        /** @description Main-document response headers; volatile ones (Date, Age …) apart. */
                        headers: Record<string, never>;
                        /** @description From the two WARCs; null when a capture has no bundle. */
                        resources: Record<string, never>;
                        /** @description Changed-pixel ratio and regions; `ignored`: the ignoreSelectors masked in pixels and those not recorded at capture time (masked, notRecorded), and likewise the ignoreText patterns (maskedText, textNotRecorded). Null without screenshots. */
                        screenshot: Record<string, never>;
                        links: {
                            self: string;
                            image: string | null;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, or another tenant’s; the detail names the field. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureDiffEvidence: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/json; charset=utf-8 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, another tenant’s or without a signed bundle, or a deployment that signs nothing; the detail names the field. Or not made yet (POST makes it). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    makeCaptureDiffEvidence: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/json; charset=utf-8 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, another tenant’s or without a signed bundle, or a deployment that signs nothing; the detail names the field. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No signer answered; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureDiffCertificate: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/pdf */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, another tenant’s or without a signed bundle, or a deployment that signs nothing; the detail names the field. Or not made yet (POST makes it). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    makeCaptureDiffCertificate: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/pdf */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, another tenant’s or without a signed bundle, or a deployment that signs nothing; the detail names the field. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No signer answered; retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureDiffImage: {
        parameters: {
            query?: {
                /** @description The capture to compare with (the older one); required. */
                base?: string;
                /** @description CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds). */
                ignoreSelectors?: string | string[];
                /** @description Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds). */
                ignoreText?: string | string[];
            };
            header?: never;
            path: {
                /** @description cap_<id>: the newer capture. */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description image/png */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                };
            };
            /** @description base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Either capture unknown, not complete, or another tenant’s; the detail names the field. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSchedules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's schedules. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description sch_<id> */
                            id: string;
                            url: string;
                            name: string;
                            /** @description Five-field cron expression, UTC (spec 4.12). */
                            cron: string;
                            /** @description The capture options every run uses (docs/capturing.md, Capture options). */
                            options?: {
                                /** @description Browser window size; default 1280×800. */
                                viewport?: {
                                    /** @description CSS pixels */
                                    width: number;
                                    /** @description CSS pixels */
                                    height: number;
                                };
                                /** @description Default 1. */
                                deviceScaleFactor?: number;
                                /** @description Default true; false: the screenshot shows the viewport only. */
                                fullPage?: boolean;
                                /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                                waitForSelector?: string;
                                /** @description Extra wait after the settle phase; default 0. */
                                delayMs?: number;
                                /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                                pdf?: boolean;
                                /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                                behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                                /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                                behaviorTimeout?: number;
                                /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                                recordSession?: boolean;
                                /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                                vantage?: string;
                                /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                                corroborate?: 2 | 3;
                                /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                                profile?: string;
                                /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                                recordBoxes?: string[];
                                /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                                recordTextBoxes?: string[];
                            };
                            /** @description Extension: each run is compared with the one before (docs/watch.md). */
                            watch?: {
                                /** @enum {string} */
                                notifyOn: "change";
                                minTextChange: number;
                                minPixelChange: number | null;
                                ignoreSelectors: string[];
                                ignoreText: string[];
                            };
                            paused: boolean;
                            /** @description Next planned run. */
                            nextRunAt: string | null;
                            /** @description Null before the first run. */
                            lastRunAt: string | null;
                            lastCaptureId: string | null;
                            /** @description Outcome of the most recent run (docs/schedules.md). */
                            lastCaptureStatus: ("pending" | "complete" | "failed" | "skipped_quota") | null;
                            /** Format: date-time */
                            createdAt: string;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Absolute http(s) URL of a public page (spec 4.3).
                     */
                    url: string;
                    name: string;
                    cron: string;
                    /** @description Capture options (absent: the defaults). Recorded in captureSettings and in the signed bundle. */
                    options?: {
                        /** @description Browser window size; default 1280×800. */
                        viewport?: {
                            /** @description CSS pixels */
                            width: number;
                            /** @description CSS pixels */
                            height: number;
                        };
                        /** @description Default 1. */
                        deviceScaleFactor?: number;
                        /** @description Default true; false: the screenshot shows the viewport only. */
                        fullPage?: boolean;
                        /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                        waitForSelector?: string;
                        /** @description Extra wait after the settle phase; default 0. */
                        delayMs?: number;
                        /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                        pdf?: boolean;
                        /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                        behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                        /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                        behaviorTimeout?: number;
                        /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                        recordSession?: boolean;
                        /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                        vantage?: string;
                        /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                        corroborate?: 2 | 3;
                        /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                        profile?: string;
                        /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                        recordBoxes?: string[];
                        /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                        recordTextBoxes?: string[];
                    };
                    /** @description Watch settings (docs/watch.md): { notifyOn: 'change', minTextChange, minPixelChange, ignoreSelectors, ignoreText }. */
                    watch?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The schedule (spec 4.12); Location is its URL. */
            201: {
                headers: {
                    /** @description Absolute URL of the resource this answer is about. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description sch_<id> */
                        id: string;
                        url: string;
                        name: string;
                        /** @description Five-field cron expression, UTC (spec 4.12). */
                        cron: string;
                        /** @description The capture options every run uses (docs/capturing.md, Capture options). */
                        options?: {
                            /** @description Browser window size; default 1280×800. */
                            viewport?: {
                                /** @description CSS pixels */
                                width: number;
                                /** @description CSS pixels */
                                height: number;
                            };
                            /** @description Default 1. */
                            deviceScaleFactor?: number;
                            /** @description Default true; false: the screenshot shows the viewport only. */
                            fullPage?: boolean;
                            /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                            waitForSelector?: string;
                            /** @description Extra wait after the settle phase; default 0. */
                            delayMs?: number;
                            /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                            pdf?: boolean;
                            /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                            behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                            /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                            behaviorTimeout?: number;
                            /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                            recordSession?: boolean;
                            /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                            vantage?: string;
                            /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                            corroborate?: 2 | 3;
                            /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                            profile?: string;
                            /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                            recordBoxes?: string[];
                            /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                            recordTextBoxes?: string[];
                        };
                        /** @description Extension: each run is compared with the one before (docs/watch.md). */
                        watch?: {
                            /** @enum {string} */
                            notifyOn: "change";
                            minTextChange: number;
                            minPixelChange: number | null;
                            ignoreSelectors: string[];
                            ignoreText: string[];
                        };
                        paused: boolean;
                        /** @description Next planned run. */
                        nextRunAt: string | null;
                        /** @description Null before the first run. */
                        lastRunAt: string | null;
                        lastCaptureId: string | null;
                        /** @description Outcome of the most recent run (docs/schedules.md). */
                        lastCaptureStatus: ("pending" | "complete" | "failed" | "skipped_quota") | null;
                        /** Format: date-time */
                        createdAt: string;
                    };
                };
            };
            /** @description Invalid url, name, cron or options, or a cron expression firing more than once per hour; the detail names it (spec 4.12). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The URL is not capturable: private address, embedded credentials, double-encoded (spec 7.2). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited, or the tier's active-schedule maximum is reached (limitType 'schedules'; spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    previewSchedule: {
        parameters: {
            query: {
                /** @description Five-field cron expression, UTC (spec 4.12), e.g. "0 6 * * 1". */
                cron: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What a schedule with this cron would do (docs/api.md, Console endpoints). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The expression, trimmed. */
                        cron: string;
                        /** @description The next five runs after now, UTC, oldest first. */
                        nextRuns: string[];
                    };
                };
            };
            /** @description Missing or invalid cron, or one firing more than once per hour: the answer POST /v1/schedules gives (spec 4.12). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description sch_<id> */
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Schedule record (spec 2.10). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description sch_<id> */
                        id: string;
                        url: string;
                        name: string;
                        /** @description Five-field cron expression, UTC (spec 4.12). */
                        cron: string;
                        /** @description The capture options every run uses (docs/capturing.md, Capture options). */
                        options?: {
                            /** @description Browser window size; default 1280×800. */
                            viewport?: {
                                /** @description CSS pixels */
                                width: number;
                                /** @description CSS pixels */
                                height: number;
                            };
                            /** @description Default 1. */
                            deviceScaleFactor?: number;
                            /** @description Default true; false: the screenshot shows the viewport only. */
                            fullPage?: boolean;
                            /** @description CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings. */
                            waitForSelector?: string;
                            /** @description Extra wait after the settle phase; default 0. */
                            delayMs?: number;
                            /** @description Also print the page to PDF: artifact `pdf`, hashed into the bundle. */
                            pdf?: boolean;
                            /** @description Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors. */
                            behaviors?: ("auto-scroll" | "auto-fetch" | "auto-play" | "expand" | "feed-timeline")[];
                            /** @description Seconds the behaviors may take together; default 20. A page that never ends is captured when it runs out, with a note. */
                            behaviorTimeout?: number;
                            /** @description Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false. */
                            recordSession?: boolean;
                            /** @description Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record. */
                            vantage?: string;
                            /** @description Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota. */
                            corroborate?: 2 | 3;
                            /** @description Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value. */
                            profile?: string;
                            /** @description Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run. */
                            recordBoxes?: string[];
                            /** @description Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run. */
                            recordTextBoxes?: string[];
                        };
                        /** @description Extension: each run is compared with the one before (docs/watch.md). */
                        watch?: {
                            /** @enum {string} */
                            notifyOn: "change";
                            minTextChange: number;
                            minPixelChange: number | null;
                            ignoreSelectors: string[];
                            ignoreText: string[];
                        };
                        paused: boolean;
                        /** @description Next planned run. */
                        nextRunAt: string | null;
                        /** @description Null before the first run. */
                        lastRunAt: string | null;
                        lastCaptureId: string | null;
                        /** @description Outcome of the most recent run (docs/schedules.md). */
                        lastCaptureStatus: ("pending" | "complete" | "failed" | "skipped_quota") | null;
                        /** Format: date-time */
                        createdAt: string;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such schedule for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description sch_<id> */
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no further runs (spec 4.12). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such schedule for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listScheduleRuns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description sch_<id> */
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule's last 50 runs, newest first (docs/watch.md). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            captureId: string;
                            /** @enum {string} */
                            status: "pending" | "complete" | "failed";
                            /** Format: date-time */
                            createdAt: string;
                            completedAt: string | null;
                            failedAt: string | null;
                            /** @description Failed runs only. */
                            error?: string | null;
                            /** @description Failed runs only (docs/api.md, Failure reasons). */
                            failureReason?: string | null;
                            /** @description On a watched schedule, this run compared with the previous complete run; null otherwise. */
                            comparison: {
                                baseCaptureId: string;
                                changed: boolean;
                                /** @description Changed beyond the watch thresholds: capture.changed fired. */
                                notified: boolean;
                                summary: Record<string, never>;
                                /** @description The diff reached a bound (docs/watch.md, Bounds) and was not completed: which one and why; then changed and notified are false. Null: it completed. */
                                bound: string | null;
                                diffUrl: string;
                            } | null;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such schedule for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAccountUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage of the authenticated tenant this month (spec 4.14). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        /** @description YYYY-MM */
                        period: string;
                        tierDisplay: string;
                        captures: {
                            used: number;
                            limit: number;
                            remaining: number;
                        };
                        storageBytes: {
                            used: number;
                            limit: number;
                            remaining: number;
                        };
                        /**
                         * Format: date-time
                         * @description First of next month.
                         */
                        resetsAt: string;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAccountUsageDaily: {
        parameters: {
            query?: {
                /** @description YYYY-MM; default the current UTC calendar month. */
                period?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The authenticated tenant's usage per day of a month. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        /** @description YYYY-MM */
                        period: string;
                        /** @description Every day of the period up to today, oldest first; zeros where nothing happened. */
                        days: {
                            /** @description YYYY-MM-DD, UTC */
                            date: string;
                            /** @description Captures completed that day. */
                            captures: number;
                            /** @description Captures failed that day. */
                            failed: number;
                            /** @description Bytes of the captures completed that day. */
                            storageBytes: number;
                        }[];
                    };
                };
            };
            /** @description period is not YYYY-MM. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTenantUsage: {
        parameters: {
            query: {
                tenant: string;
                /** @description YYYY-MM; default the current UTC calendar month. */
                period?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant's usage in a period (spec 4.11). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        /** @description YYYY-MM */
                        period: string;
                        /** @description Captures completed in the period. */
                        captureCount: number;
                        /** @description Bytes consumed by captures in the period. */
                        storageBytes: number;
                        /** @description Authenticated API calls in the period. */
                        apiCallCount: number;
                        /** @description Null when there was no activity in the period. */
                        updatedAt: string | null;
                    };
                };
            };
            /** @description Missing or malformed tenant or period (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTenants: {
        parameters: {
            query?: {
                /** @description Default 50, at most 200. */
                limit?: number;
                /** @description The nextCursor of the page before. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tenants in tenant id order, with quotas and usage (docs/api.md, Console endpoints). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            tenantId: string;
                            /** @enum {string} */
                            tier: "starter" | "pro";
                            /** @description In effect: the override, else the tier default. */
                            quotas: {
                                capturesPerMonth: number;
                                storageBytes: number;
                            };
                            /** @description Null: the tier default applies. */
                            overrides: {
                                capturesPerMonth: number | null;
                                storageBytes: number | null;
                            };
                            /** @description As GET /v1/admin/usage answers for the current month. */
                            usage: {
                                /** @description YYYY-MM, the current UTC month. */
                                period: string;
                                captureCount: number;
                                storageBytes: number;
                                apiCallCount: number;
                            };
                        }[];
                        /** @description Pass as cursor for the next page; null on the last page. */
                        nextCursor: string | null;
                    };
                };
            };
            /** @description limit or cursor is invalid; the detail names it. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTenantConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant id. */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tenant config record (spec 2.11). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        config: {
                            /** @description In effect: the override, else the tier default. */
                            quotas: {
                                capturesPerMonth: number;
                                storageBytes: number;
                            };
                            /** @enum {string} */
                            tier: "starter" | "pro";
                            /** @description Null: the tier default applies. */
                            overrides: {
                                capturesPerMonth: number | null;
                                storageBytes: number | null;
                            };
                        };
                        updatedAt: string | null;
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setTenantConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    quotas?: {
                        capturesPerMonth?: number | null;
                        storageBytes?: number | null;
                    };
                    /** @enum {string} */
                    tier?: "starter" | "pro";
                };
            };
        };
        responses: {
            /** @description Tenant config record (spec 2.11). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        config: {
                            /** @description In effect: the override, else the tier default. */
                            quotas: {
                                capturesPerMonth: number;
                                storageBytes: number;
                            };
                            /** @enum {string} */
                            tier: "starter" | "pro";
                            /** @description Null: the tier default applies. */
                            overrides: {
                                capturesPerMonth: number | null;
                                storageBytes: number | null;
                            };
                        };
                        updatedAt: string | null;
                    };
                };
            };
            /** @description Invalid tenantId, quotas or tier; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getReport: {
        parameters: {
            query?: {
                /** @description First day, YYYY-MM-DD (UTC); default 29 days before to. */
                from?: string;
                /** @description Last day, YYYY-MM-DD (UTC), inclusive; default today. */
                to?: string;
                /** @description Only this tenant; default all. */
                tenant?: string;
                /** @description csv: RFC 4180 text with a header row, as an attachment. */
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                /** @description One of captures-per-day, failures-by-reason, capture-latency, storage-growth. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report; with format=csv, RFC 4180 text with a header row, served as an attachment <name>-<from>-<to>.csv. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        name: "captures-per-day" | "failures-by-reason" | "capture-latency" | "storage-growth";
                        /** @description YYYY-MM-DD */
                        from: string;
                        /** @description YYYY-MM-DD */
                        to: string;
                        columns: string[];
                        /** @description One array per row, in the order of columns; days as YYYY-MM-DD. */
                        rows: (string | number | boolean | null)[][];
                    };
                    "text/csv": string;
                };
            };
            /** @description Invalid from, to, tenant or format, or a window over 366 days; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid credential: neither the admin key nor ANALYST_KEY, or an ended console session. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such report; the detail lists the reports. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 8.1), or 5 failed admin or analyst credentials from it within 60 s. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Neither ADMIN_KEY nor ANALYST_KEY is configured. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCapacity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Capture capacity (docs/capture.md, Capacity). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Capture jobs no worker has taken yet. */
                        jobBacklog: number;
                        /** @description Capture jobs workers hold now. */
                        inFlight: number;
                        /** @description CAPTURE_BACKLOG_MAX: with jobBacklog + inFlight at this, submissions are answered 503. */
                        backlogMax: number;
                        /** @description WORKER_CONCURRENCY of this process's worker; null when this process runs none. */
                        workerConcurrency: number | null;
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listOperatorChecks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every operator check with its last result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        checks: {
                            /** @enum {string} */
                            name: "ledger-audit" | "log-audit" | "log-monitor" | "storage-verify";
                            /** @description What the check proves. */
                            summary: string;
                            /** @description The CLI command that runs it (and records its result). */
                            command: string;
                            /** @description True when POST /v1/admin/checks/{name} runs it in the API. */
                            onDemand: boolean;
                            /** @description Its last recorded result; null when it never ran. */
                            last: {
                                /** @enum {string} */
                                check: "ledger-audit" | "log-audit" | "log-monitor" | "storage-verify";
                                /**
                                 * Format: date-time
                                 * @description When the run started.
                                 */
                                ranAt: string;
                                durationMs: number;
                                /** @description True when the run found nothing wrong. */
                                ok: boolean;
                                /** @description The first 20 findings. */
                                findings: {
                                    /** @description The check's name for it: a divergence kind, MISSING, fork, corrupt, … */
                                    kind: string;
                                    /** @description What is wrong, in a sentence. */
                                    message: string;
                                }[];
                                /** @description How many findings there were in all. */
                                findingCount: number;
                                /** @description What the run looked at: a tenant and its sequences, a log size, a ledger range. */
                                covered: string;
                                /**
                                 * @description cli: a capture-ledger run on a host; api: run on an operator's request.
                                 * @enum {string}
                                 */
                                ranBy: "cli" | "api";
                            } | null;
                        }[];
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runLogMonitorCheck: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One finished run of an operator check (docs/operators.md, Recorded results). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        check: "ledger-audit" | "log-audit" | "log-monitor" | "storage-verify";
                        /**
                         * Format: date-time
                         * @description When the run started.
                         */
                        ranAt: string;
                        durationMs: number;
                        /** @description True when the run found nothing wrong. */
                        ok: boolean;
                        /** @description The first 20 findings. */
                        findings: {
                            /** @description The check's name for it: a divergence kind, MISSING, fork, corrupt, … */
                            kind: string;
                            /** @description What is wrong, in a sentence. */
                            message: string;
                        }[];
                        /** @description How many findings there were in all. */
                        findingCount: number;
                        /** @description What the run looked at: a tenant and its sequences, a log size, a ledger range. */
                        covered: string;
                        /**
                         * @description cli: a capture-ledger run on a host; api: run on an operator's request.
                         * @enum {string}
                         */
                        ranBy: "cli" | "api";
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset), or this API process serves no transparency log. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTenantRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's retention of stored captures. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        /** @description Captures completed from now on are retained this many days (0: none). */
                        days: number;
                        /**
                         * @description The tenant's own setting, or RETENTION_DEFAULT_DAYS.
                         * @enum {string}
                         */
                        source: "tenant" | "default";
                        defaultDays: number;
                        /** @description Whether storage locks objects (S3 with Object Lock); false: no retention applies. */
                        locked: boolean;
                    };
                };
            };
            /** @description Invalid tenantId. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setTenantRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    days: number | null;
                    by: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The tenant's retention of stored captures, as set, and what the change applies to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenantId: string;
                        /** @description Captures completed from now on are retained this many days (0: none). */
                        days: number;
                        /**
                         * @description The tenant's own setting, or RETENTION_DEFAULT_DAYS.
                         * @enum {string}
                         */
                        source: "tenant" | "default";
                        defaultDays: number;
                        /** @description Whether storage locks objects (S3 with Object Lock); false: no retention applies. */
                        locked: boolean;
                        /**
                         * @description A new retention (lower or higher) applies to captures completed from now on only.
                         * @enum {string}
                         */
                        appliesTo: "captures completed from now on";
                        /** @description What the change does: captures stored before keep the retain-until dates storage holds them to (compliance mode cannot shorten them). */
                        detail: string;
                    };
                };
            };
            /** @description Invalid tenantId, days, by or reason; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCaptureRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id> */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The capture's retention and legal hold as storage holds them, with who last placed or lifted a hold and why. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        captureId: string;
                        /** @enum {string} */
                        storage: "jetstream" | "s3";
                        /** @description The retain-until date storage holds every object of the capture to (compliance mode; the earliest of them, read back from storage); null: one is not retained. */
                        retainUntil: string | null;
                        legalHold: {
                            active: boolean;
                            by?: string;
                            reason?: string;
                            /**
                             * Format: date-time
                             * @description When the last hold was placed or lifted.
                             */
                            at?: string;
                        };
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such capture. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The capture is not complete. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured, or object storage is unavailable (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    extendCaptureRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id> */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: date-time */
                    retainUntil: string;
                    by: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The capture's retention and legal hold as storage holds them, with who last placed or lifted a hold and why. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        captureId: string;
                        /** @enum {string} */
                        storage: "jetstream" | "s3";
                        /** @description The retain-until date storage holds every object of the capture to (compliance mode; the earliest of them, read back from storage); null: one is not retained. */
                        retainUntil: string | null;
                        legalHold: {
                            active: boolean;
                            by?: string;
                            reason?: string;
                            /**
                             * Format: date-time
                             * @description When the last hold was placed or lifted.
                             */
                            at?: string;
                        };
                    };
                };
            };
            /** @description Invalid retainUntil, by or reason; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such capture. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Storage refused shortening the retention, the capture is not complete, or storage cannot lock objects. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured, or object storage is unavailable (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setCaptureLegalHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description cap_<id> */
                captureId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    active: boolean;
                    by: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The capture's retention and legal hold as storage holds them, with who last placed or lifted a hold and why. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        captureId: string;
                        /** @enum {string} */
                        storage: "jetstream" | "s3";
                        /** @description The retain-until date storage holds every object of the capture to (compliance mode; the earliest of them, read back from storage); null: one is not retained. */
                        retainUntil: string | null;
                        legalHold: {
                            active: boolean;
                            by?: string;
                            reason?: string;
                            /**
                             * Format: date-time
                             * @description When the last hold was placed or lifted.
                             */
                            at?: string;
                        };
                    };
                };
            };
            /** @description Invalid active, by or reason; the detail names the field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such capture. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The capture is not complete, or storage cannot lock objects (not S3 with Object Lock). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured, or object storage is unavailable (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Never secrets; empty when none. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** Format: uri */
                            url: string;
                            events: ("capture.complete" | "capture.failed")[];
                            /** @description Extension (docs/watch.md): present when subscribed. */
                            extensionEvents?: "capture.changed"[];
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * @description Always true; there is no pause.
                             * @enum {boolean}
                             */
                            active: true;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    registerWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uri */
                    url: string;
                    events: ("capture.complete" | "capture.failed")[];
                    /** @description Extension (docs/watch.md): opt-in event types beyond spec 6, sent only to webhooks that list them. */
                    extensionEvents?: "capture.changed"[];
                    name: string;
                };
            };
        };
        responses: {
            /** @description Registered (spec 4.13). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description whk_<id> */
                        id: string;
                        /** Format: uri */
                        url: string;
                        events: ("capture.complete" | "capture.failed")[];
                        /** @description Extension (docs/watch.md): present when subscribed. */
                        extensionEvents?: "capture.changed"[];
                        name: string;
                        /** @description svcsec_ followed by 64 hex characters; the HMAC key is the hex-decoded part (spec 6.5). */
                        secret: string;
                        /** Format: date-time */
                        createdAt: string;
                        warning: string;
                    };
                };
            };
            /** @description Invalid url, events or name, or a URL that is not a public address; the detail names the field (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The tenant already has 5 webhooks (spec 7.2). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The service is unavailable (spec 4.13). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description whk_<id> */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; events already dispatched may still be delivered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such webhook for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    pingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description whk_<id> */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The outcome of one signed ping (spec 4.13); a failed ping never changes the webhook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description True when the endpoint answered 2xx. */
                        success: boolean;
                        /** @description 0 when no HTTP response arrived. */
                        httpStatus: number;
                        latencyMs: number;
                        /** @description Present on failure: non-2xx, network error, timeout. */
                        detail?: string;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such webhook for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listOwnWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Newest first; default 100, at most 500. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description whk_<id> */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A webhook's delivery attempts and dead letters (docs/webhooks.md). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        tenantId: string;
                        deleted: boolean;
                        /** @description Delivery attempts, newest first. */
                        data: {
                            deliveryId: string;
                            eventId: string;
                            eventType: string;
                            attempt: number;
                            /** @enum {string} */
                            outcome: "delivered" | "failed";
                            httpStatus: number | null;
                            detail?: string;
                            latencyMs: number | null;
                            /** Format: date-time */
                            attemptedAt: string;
                            /** Format: date-time */
                            nextAttemptAt?: string;
                        }[];
                        deadLetters: {
                            deliveryId: string;
                            eventId: string;
                            eventType: string;
                            attempts: number;
                            reason: string;
                            /** Format: date-time */
                            deadLetteredAt: string;
                        }[];
                    };
                };
            };
            /** @description limit is not an integer of at least 1. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such webhook for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's profiles, oldest first; empty when none. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description prf_<id> */
                            id: string;
                            name: string;
                            /** @description 1 when created; each new contents adds one. A capture records the version it used. */
                            version: number;
                            /** @description Registrable domains the profile holds cookies or storage for. */
                            sites: string[];
                            cookieCount: number;
                            /** @description Origins with localStorage. */
                            originCount: number;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            /** @description key:<keyHash>, oidc:<provider>:<subject> or admin. */
                            createdBy: string;
                            /** @description When a capture last used it; null: never. */
                            lastUsedAt: string | null;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description The signed-in browser's state: Playwright's storageState ({cookies, origins}), an array of cookies as browser extensions export them (EditThisCookie, Cookie-Editor), or the text of a Netscape cookies.txt. At most 3000 cookies and 200 origins; read, sealed and never shown again. */
                    contents: {
                        [key: string]: unknown;
                    } | unknown[] | string;
                };
            };
        };
        responses: {
            /** @description A browser profile: what it covers, never its cookie or storage values. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description prf_<id> */
                        id: string;
                        name: string;
                        /** @description 1 when created; each new contents adds one. A capture records the version it used. */
                        version: number;
                        /** @description Registrable domains the profile holds cookies or storage for. */
                        sites: string[];
                        cookieCount: number;
                        /** @description Origins with localStorage. */
                        originCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description key:<keyHash>, oidc:<provider>:<subject> or admin. */
                        createdBy: string;
                        /** @description When a capture last used it; null: never. */
                        lastUsedAt: string | null;
                    };
                };
            };
            /** @description Missing or malformed JSON body, contents in none of the three shapes, or beyond a bound (cookies, origins, size); the detail names the field, never a value. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The tenant already has 100 profiles. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description prf_<id> */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A browser profile: what it covers, never its cookie or storage values. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description prf_<id> */
                        id: string;
                        name: string;
                        /** @description 1 when created; each new contents adds one. A capture records the version it used. */
                        version: number;
                        /** @description Registrable domains the profile holds cookies or storage for. */
                        sites: string[];
                        cookieCount: number;
                        /** @description Origins with localStorage. */
                        originCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description key:<keyHash>, oidc:<provider>:<subject> or admin. */
                        createdBy: string;
                        /** @description When a capture last used it; null: never. */
                        lastUsedAt: string | null;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such profile for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description prf_<id> */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; its sealed contents are gone, and a capture admitted before that fails with profile_unavailable. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such profile for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    renameProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description prf_<id> */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description A browser profile: what it covers, never its cookie or storage values. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description prf_<id> */
                        id: string;
                        name: string;
                        /** @description 1 when created; each new contents adds one. A capture records the version it used. */
                        version: number;
                        /** @description Registrable domains the profile holds cookies or storage for. */
                        sites: string[];
                        cookieCount: number;
                        /** @description Origins with localStorage. */
                        originCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description key:<keyHash>, oidc:<provider>:<subject> or admin. */
                        createdBy: string;
                        /** @description When a capture last used it; null: never. */
                        lastUsedAt: string | null;
                    };
                };
            };
            /** @description Missing or malformed JSON body, or an invalid field; the detail names it (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such profile for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    replaceProfileContents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description prf_<id> */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The signed-in browser's state: Playwright's storageState ({cookies, origins}), an array of cookies as browser extensions export them (EditThisCookie, Cookie-Editor), or the text of a Netscape cookies.txt. At most 3000 cookies and 200 origins; read, sealed and never shown again. */
                    contents: {
                        [key: string]: unknown;
                    } | unknown[] | string;
                };
            };
        };
        responses: {
            /** @description A browser profile: what it covers, never its cookie or storage values. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description prf_<id> */
                        id: string;
                        name: string;
                        /** @description 1 when created; each new contents adds one. A capture records the version it used. */
                        version: number;
                        /** @description Registrable domains the profile holds cookies or storage for. */
                        sites: string[];
                        cookieCount: number;
                        /** @description Origins with localStorage. */
                        originCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description key:<keyHash>, oidc:<provider>:<subject> or admin. */
                        createdBy: string;
                        /** @description When a capture last used it; null: never. */
                        lastUsedAt: string | null;
                    };
                };
            };
            /** @description Missing or malformed JSON body, contents in none of the three shapes, or beyond a bound (cookies, origins, size); the detail names the field, never a value. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such profile for this tenant. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The profile changed while this update was made; try again. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    openBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Refresh: start from this profile’s latest contents; Save then makes its next version. */
                    profileId?: string;
                    /** @description An http(s) address to open first; the blank page otherwise. */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description A remote browser, open. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description rbs_<id>: unguessable, and reachable only with the credential that opened it. */
                        id: string;
                        /** @description The profile being refreshed, or null for a new one. */
                        profileId: string | null;
                        /** @description The page’s size, CSS px. */
                        viewport: {
                            width: number;
                            height: number;
                        };
                        /**
                         * Format: date-time
                         * @description When the hard limit closes it (REMOTE_BROWSER_MAX_MS).
                         */
                        expiresAt: string;
                        /** @description It closes after this long without input (REMOTE_BROWSER_IDLE_MS). */
                        idleTimeoutMs: number;
                        /** @description The WebSocket path of its stream. */
                        streamUrl: string;
                    };
                };
            };
            /** @description Missing or malformed JSON body, or an invalid field; the detail names it (spec 7.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description This tenant has REMOTE_BROWSER_PER_TENANT remote browsers open already. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description profileId names no profile of this tenant. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Every remote browser of the service is in use (REMOTE_BROWSER_MAX), or the browser could not start; Retry-After says when to try again. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    streamBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description rbs_<id>, as the opening answered it. */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching to the WebSocket protocol (with Upgrade: websocket). */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Without Upgrade: websocket, the session as it was opened. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description rbs_<id>: unguessable, and reachable only with the credential that opened it. */
                        id: string;
                        /** @description The profile being refreshed, or null for a new one. */
                        profileId: string | null;
                        /** @description The page’s size, CSS px. */
                        viewport: {
                            width: number;
                            height: number;
                        };
                        /**
                         * Format: date-time
                         * @description When the hard limit closes it (REMOTE_BROWSER_MAX_MS).
                         */
                        expiresAt: string;
                        /** @description It closes after this long without input (REMOTE_BROWSER_IDLE_MS). */
                        idleTimeoutMs: number;
                        /** @description The WebSocket path of its stream. */
                        streamUrl: string;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope (spec 5.3), or a console page of another origin asked. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such remote browser for this credential (another tenant’s or person’s, or ended). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    saveBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description rbs_<id>, as the opening answered it. */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Required for a new profile. */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description The profile saved (never its cookie or storage values); the remote browser is closed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        version: number;
                        /** @description Registrable domains the profile holds state for. */
                        sites: string[];
                    };
                };
            };
            /** @description A new profile without a name, or an invalid field; the detail names it. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such remote browser for this credential (another tenant’s or person’s, or ended). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json (spec 7.2). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    closeBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description rbs_<id>, as the opening answered it. */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Closed without saving. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Missing, malformed or invalid Authorization header (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The API key lacks the scope this endpoint needs (spec 5.3). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such remote browser for this credential (another tenant’s or person’s, or ended). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getArchiveStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where the archive stands (docs/operators.md, The archive). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Whether this deployment archives (ARCHIVE_URL set); false: the rest is empty. */
                        configured: boolean;
                        /** @description Ledger, log and state messages not yet in a sealed segment; null without an archive. */
                        lagEvents: number | null;
                        /** @description Age in seconds of the oldest of them; 0 when none, null without an archive. */
                        lagSeconds: number | null;
                        /** @description The archive's last segment number; 0 when none was sealed yet. */
                        lastSegment: number;
                        /** @description When the last segment was sealed (RFC 3339); null when none. */
                        lastArchivedAt: string | null;
                    };
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Newest first; default 100, at most 500. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description whk_<id> */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A webhook's delivery attempts and dead letters (docs/webhooks.md). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        tenantId: string;
                        deleted: boolean;
                        /** @description Delivery attempts, newest first. */
                        data: {
                            deliveryId: string;
                            eventId: string;
                            eventType: string;
                            attempt: number;
                            /** @enum {string} */
                            outcome: "delivered" | "failed";
                            httpStatus: number | null;
                            detail?: string;
                            latencyMs: number | null;
                            /** Format: date-time */
                            attemptedAt: string;
                            /** Format: date-time */
                            nextAttemptAt?: string;
                        }[];
                        deadLetters: {
                            deliveryId: string;
                            eventId: string;
                            eventType: string;
                            attempts: number;
                            reason: string;
                            /** Format: date-time */
                            deadLetteredAt: string;
                        }[];
                    };
                };
            };
            /** @description limit is not an integer of at least 1. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No such webhook. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookDeadLetters: {
        parameters: {
            query?: {
                /** @description Only this tenant; default all. */
                tenant?: string;
                /** @description Newest first; default 50, at most 200. */
                limit?: number;
                /** @description The nextCursor of the page before. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook dead-letter queue across tenants (docs/webhooks.md). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Dead letters, newest first. */
                        data: {
                            deliveryId: string;
                            tenantId: string;
                            webhookId: string;
                            /** @description The webhook event id receivers dedupe on. */
                            eventId: string;
                            eventType: string;
                            /** @description Attempts made before giving up (docs/webhooks.md, retry table). */
                            attempts: number;
                            /** @description The last attempt's failure: an HTTP status, a refused address, a timeout. */
                            reason: string;
                            /** Format: date-time */
                            deadLetteredAt: string;
                        }[];
                        /** @description Pass as cursor for the next page; null on the last page. */
                        nextCursor: string | null;
                    };
                };
            };
            /** @description tenant, limit or cursor is invalid; the detail names it. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid admin credential (spec 5.6). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The admin API is not configured (ADMIN_KEY unset; spec 5.2). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogCheckpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint as a C2SP signed note (text/plain). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogCheckpointJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The latest checkpoint with its RFC 3161 timestamp. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        origin: string;
                        treeSize: number;
                        /** @description Base64 of the 32-byte RFC 6962 root. */
                        rootHash: string;
                        /** @description The checkpoint as a C2SP signed note (what GET /v1/log/checkpoint answers). */
                        note: string;
                        /** @description Null when the deployment has no TSA or it was unavailable. */
                        timestamp: {
                            /** @description Base64 DER RFC 3161 TimeStampToken over SHA-256 of the note. */
                            token: string;
                            /** Format: date-time */
                            genTime: string;
                            tsa: string;
                        } | null;
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Ed25519 verifier key, `<origin>+<hex key hash>+<base64 0x01‖key>` (text/plain). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listLogWitnesses: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The configured witnesses (none: an empty list and quorum 0). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many must cosign for a verify result to call a checkpoint witnessed. */
                        quorum: number;
                        witnesses: {
                            name: string;
                            /** @description The witness vkey, `<name>+<hex key ID>+<base64 0x04‖key>`. */
                            key: string;
                            /** @description Its C2SP tlog-witness submission prefix. */
                            url: string;
                        }[];
                    };
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogTile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description <L>/<N>[.p/<W>] or entries/<N>[.p/<W>] (C2SP tlog-tiles), N in x-prefixed three-digit groups; its slashes may be sent as %2F. */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tile bytes (32-byte hashes) or an entries bundle; full tiles are immutable and cached for a year. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Not a tile path. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The tree does not hold that tile (yet). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogInclusionProof: {
        parameters: {
            query?: {
                /** @description The leaf; or give captureId. */
                leafIndex?: number;
                /** @description A capture whose bundle is logged; or give leafIndex. */
                captureId?: string;
                /** @description Tree size of the proof; default: the latest checkpoint. */
                treeSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Inclusion proof. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        leafIndex: number;
                        treeSize: number;
                        /** @description Base64 root of the tree of treeSize leaves. */
                        rootHash: string;
                        /** @description Base64 sibling hashes, leaf to root (RFC 9162 2.1.3). */
                        hashes: string[];
                        /** @description The signed checkpoint of treeSize, when treeSize was not given. */
                        checkpoint?: string;
                    };
                };
            };
            /** @description leafIndex or captureId missing (or both given), or beyond treeSize; treeSize beyond the log. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description The capture has no leaf in the log (yet). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLogConsistencyProof: {
        parameters: {
            query?: {
                /** @description The older tree size. */
                first?: number;
                /** @description The newer tree size; default: the latest checkpoint. */
                second?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Consistency proof. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        first: number;
                        second: number;
                        firstRootHash: string;
                        secondRootHash: string;
                        /** @description Base64 hashes (RFC 9162 2.1.4). */
                        hashes: string[];
                    };
                };
            };
            /** @description first missing, first above second, or second beyond the log. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant'). */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error; the detail carries the request id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
            /** @description No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After). */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Problem"];
                };
            };
        };
    };
    onCaptureComplete: {
        parameters: {
            query?: never;
            header: {
                /** @description The envelope's id. */
                "X-SVC-Event-Id": string;
                /** @description Unix seconds when this attempt was sent. */
                "X-SVC-Timestamp": string;
                /** @description t=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (docs/webhooks.md). */
                "X-SVC-Signature-256": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Event id; the same on every delivery attempt: deduplicate on it (spec 6.6). */
                    id: string;
                    /** @constant */
                    type: "capture.complete";
                    /** Format: date-time */
                    createdAt: string;
                    data: {
                        id: string;
                        /** @constant */
                        status: "complete";
                        /** Format: uri */
                        url: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        completedAt: string;
                        /** @enum {string} */
                        renderQuality: "full" | "partial";
                        artifacts: {
                            /** Format: uri */
                            screenshot: string;
                            /** Format: uri */
                            html: string;
                            /**
                             * Format: uri
                             * @description Present when headers were captured.
                             */
                            headers?: string;
                        };
                        /**
                         * Format: uri
                         * @description Present when the capture has a signed bundle.
                         */
                        verifyUrl?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 4xx other than 408 and 429 ends the delivery (dead-lettered); 408, 429, 5xx and no answer are retried. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCaptureFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The envelope's id. */
                "X-SVC-Event-Id": string;
                /** @description Unix seconds when this attempt was sent. */
                "X-SVC-Timestamp": string;
                /** @description t=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (docs/webhooks.md). */
                "X-SVC-Signature-256": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Event id; the same on every delivery attempt: deduplicate on it (spec 6.6). */
                    id: string;
                    /** @constant */
                    type: "capture.failed";
                    /** Format: date-time */
                    createdAt: string;
                    data: {
                        id: string;
                        /** @constant */
                        status: "failed";
                        /** Format: uri */
                        url: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        failedAt: string;
                        error: string;
                        retryable: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 4xx other than 408 and 429 ends the delivery (dead-lettered); 408, 429, 5xx and no answer are retried. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPing: {
        parameters: {
            query?: never;
            header: {
                /** @description The envelope's id. */
                "X-SVC-Event-Id": string;
                /** @description Unix seconds when this attempt was sent. */
                "X-SVC-Timestamp": string;
                /** @description t=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (docs/webhooks.md). */
                "X-SVC-Signature-256": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Event id; the same on every delivery attempt: deduplicate on it (spec 6.6). */
                    id: string;
                    /** @constant */
                    type: "ping";
                    /** Format: date-time */
                    createdAt: string;
                    data: {
                        webhookId: string;
                        message: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 4xx other than 408 and 429 ends the delivery (dead-lettered); 408, 429, 5xx and no answer are retried. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
