"""The broker outside the group coordinator: its network layer and request memory bound (`network`,
`memory_pool`: `SocketServer.scala`, `RequestChannel.scala`, `SimpleMemoryPool.java`, KIP-72) and
how large a fetch response can get (`fetch_sizing`: `FetchResponse.scala` @ 0.8.2, KAFKA-1196).

May import: `kafkasim.core`.
"""
