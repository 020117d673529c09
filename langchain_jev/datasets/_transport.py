"""An HTTP transport that spreads many concurrent requests over several small connection pools.

A connection pool looks over all its connections each time a request starts or
ends, so its cost per request grows with the number of connections. With dozens
of requests in flight (``--concurrency 64``) that bookkeeping, not the network,
bounds how many rows a second the command line can judge. `ShardedTransport`
keeps several pools of a few connections each and sends every request to the
least busy one; the requests themselves are unchanged. The pools share one
TLS context (making one reads the system's certificates, which takes a while).
"""

from __future__ import annotations

import ssl

import httpx2

__all__ = ["ShardedTransport", "shard_count"]


def shard_count(concurrency: int, per_shard: int = 4) -> int:
    """How many pools to use for ``concurrency`` requests in flight (about ``per_shard`` each).

    Example:
        >>> shard_count(1), shard_count(4), shard_count(32), shard_count(33)
        (1, 1, 8, 9)

    """
    return max(1, -(-concurrency // per_shard))


class ShardedTransport(httpx2.AsyncBaseTransport):
    """Send each request through the least busy of ``shards`` connection pools.

    Example:
        >>> transport = ShardedTransport(shards=4, connections=16)
        >>> len(transport.pools)
        4

    """

    def __init__(
        self,
        shards: int,
        connections: int,
        *,
        keepalive_expiry: float = 30.0,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        per_pool = max(1, -(-connections // max(1, shards)))
        limits = httpx2.Limits(
            max_connections=per_pool,
            max_keepalive_connections=per_pool,
            keepalive_expiry=keepalive_expiry,
        )
        context = httpx2.create_ssl_context(verify=verify)
        self.pools = [httpx2.AsyncHTTPTransport(limits=limits, verify=context) for _ in range(max(1, shards))]
        self._busy = [0] * len(self.pools)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` through the pool with the fewest requests waiting for an answer."""
        index = min(range(len(self.pools)), key=self._busy.__getitem__)
        self._busy[index] += 1
        try:
            return await self.pools[index].handle_async_request(request)
        finally:
            self._busy[index] -= 1

    async def aclose(self) -> None:
        """Close every pool."""
        for pool in self.pools:
            await pool.aclose()
