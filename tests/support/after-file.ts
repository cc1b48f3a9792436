/**
 * After each test file: the idle keep-alive sockets of Node's global HTTP agents are closed. Node
 * 20's agents keep a socket 5 s after its last request, so the last file a Jest worker ran left
 * them open, the worker could not exit, and Jest force-exited it with a warning about leaking tests.
 */
import http from 'node:http';
import https from 'node:https';

afterAll(() => {
  http.globalAgent.destroy();
  https.globalAgent.destroy();
});
