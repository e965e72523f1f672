<?php
// Verifies a Porchlight `lead.created` delivery (PHP 7.4+, no extensions beyond the defaults).
// Pass the exact bytes received (file_get_contents('php://input')), never a re-encoded body.

const PORCHLIGHT_TOLERANCE_SECONDS = 300;

function porchlight_verify_signature(string $secret, ?string $timestamp, ?string $signature, string $rawBody, ?int $now = null): bool
{
    // The D modifier stops `$` from accepting a trailing newline.
    if ($timestamp === null || $signature === null || !preg_match('/^[0-9]{1,15}$/D', $timestamp)) {
        return false;
    }
    $now = $now ?? time();
    if (abs($now - (int) $timestamp) > PORCHLIGHT_TOLERANCE_SECONDS) {
        return false;
    }
    $expected = 'sha256=' . hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret);
    return hash_equals($expected, $signature);
}

// In a web request:
//   $valid = porchlight_verify_signature($secret, $_SERVER['HTTP_X_SERVICE_TIMESTAMP'] ?? null,
//       $_SERVER['HTTP_X_SERVICE_SIGNATURE'] ?? null, file_get_contents('php://input'));

// Command line (used by the tests): php verify.php SECRET TIMESTAMP SIGNATURE [NOW] < raw-body
if (PHP_SAPI === 'cli' && isset($argv) && realpath($argv[0]) === __FILE__) {
    $now = isset($argv[4]) ? (int) $argv[4] : null;
    $valid = porchlight_verify_signature($argv[1], $argv[2], $argv[3], stream_get_contents(STDIN), $now);
    echo $valid ? "valid\n" : "invalid\n";
    exit($valid ? 0 : 1);
}
