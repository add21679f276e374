-- CA certificates of built-in TSAs, published on the log by the processes that run one (DESIGN decision 10):
-- any API process trusts them for bundles time-stamped by any worker, without sharing a disk.
CREATE TABLE tsa_certificates (
  fingerprint text PRIMARY KEY,
  ca_cert_pem text NOT NULL,
  published_at timestamptz NOT NULL
);
