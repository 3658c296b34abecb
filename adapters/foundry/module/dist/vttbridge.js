var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// node_modules/engine.io-parser/build/esm/commons.js
var PACKET_TYPES = /* @__PURE__ */ Object.create(null);
PACKET_TYPES["open"] = "0";
PACKET_TYPES["close"] = "1";
PACKET_TYPES["ping"] = "2";
PACKET_TYPES["pong"] = "3";
PACKET_TYPES["message"] = "4";
PACKET_TYPES["upgrade"] = "5";
PACKET_TYPES["noop"] = "6";
var PACKET_TYPES_REVERSE = /* @__PURE__ */ Object.create(null);
Object.keys(PACKET_TYPES).forEach((key) => {
  PACKET_TYPES_REVERSE[PACKET_TYPES[key]] = key;
});
var ERROR_PACKET = { type: "error", data: "parser error" };

// node_modules/engine.io-parser/build/esm/encodePacket.browser.js
var withNativeBlob = typeof Blob === "function" || typeof Blob !== "undefined" && Object.prototype.toString.call(Blob) === "[object BlobConstructor]";
var withNativeArrayBuffer = typeof ArrayBuffer === "function";
var isView = (obj) => {
  return typeof ArrayBuffer.isView === "function" ? ArrayBuffer.isView(obj) : obj && obj.buffer instanceof ArrayBuffer;
};
var encodePacket = ({ type, data }, supportsBinary, callback) => {
  if (withNativeBlob && data instanceof Blob) {
    if (supportsBinary) {
      return callback(data);
    } else {
      return encodeBlobAsBase64(data, callback);
    }
  } else if (withNativeArrayBuffer && (data instanceof ArrayBuffer || isView(data))) {
    if (supportsBinary) {
      return callback(data);
    } else {
      return encodeBlobAsBase64(new Blob([data]), callback);
    }
  }
  return callback(PACKET_TYPES[type] + (data || ""));
};
var encodeBlobAsBase64 = (data, callback) => {
  const fileReader = new FileReader();
  fileReader.onload = function() {
    const content = fileReader.result.split(",")[1];
    callback("b" + (content || ""));
  };
  return fileReader.readAsDataURL(data);
};
function toArray(data) {
  if (data instanceof Uint8Array) {
    return data;
  } else if (data instanceof ArrayBuffer) {
    return new Uint8Array(data);
  } else {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
}
var TEXT_ENCODER;
function encodePacketToBinary(packet, callback) {
  if (withNativeBlob && packet.data instanceof Blob) {
    return packet.data.arrayBuffer().then(toArray).then(callback);
  } else if (withNativeArrayBuffer && (packet.data instanceof ArrayBuffer || isView(packet.data))) {
    return callback(toArray(packet.data));
  }
  encodePacket(packet, false, (encoded) => {
    if (!TEXT_ENCODER) {
      TEXT_ENCODER = new TextEncoder();
    }
    callback(TEXT_ENCODER.encode(encoded));
  });
}

// node_modules/engine.io-parser/build/esm/contrib/base64-arraybuffer.js
var chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
var lookup = typeof Uint8Array === "undefined" ? [] : new Uint8Array(256);
for (let i = 0; i < chars.length; i++) {
  lookup[chars.charCodeAt(i)] = i;
}
var decode = (base64) => {
  let bufferLength = base64.length * 0.75, len = base64.length, i, p = 0, encoded1, encoded2, encoded3, encoded4;
  if (base64[base64.length - 1] === "=") {
    bufferLength--;
    if (base64[base64.length - 2] === "=") {
      bufferLength--;
    }
  }
  const arraybuffer = new ArrayBuffer(bufferLength), bytes = new Uint8Array(arraybuffer);
  for (i = 0; i < len; i += 4) {
    encoded1 = lookup[base64.charCodeAt(i)];
    encoded2 = lookup[base64.charCodeAt(i + 1)];
    encoded3 = lookup[base64.charCodeAt(i + 2)];
    encoded4 = lookup[base64.charCodeAt(i + 3)];
    bytes[p++] = encoded1 << 2 | encoded2 >> 4;
    bytes[p++] = (encoded2 & 15) << 4 | encoded3 >> 2;
    bytes[p++] = (encoded3 & 3) << 6 | encoded4 & 63;
  }
  return arraybuffer;
};

// node_modules/engine.io-parser/build/esm/decodePacket.browser.js
var withNativeArrayBuffer2 = typeof ArrayBuffer === "function";
var decodePacket = (encodedPacket, binaryType) => {
  if (typeof encodedPacket !== "string") {
    return {
      type: "message",
      data: mapBinary(encodedPacket, binaryType)
    };
  }
  const type = encodedPacket.charAt(0);
  if (type === "b") {
    return {
      type: "message",
      data: decodeBase64Packet(encodedPacket.substring(1), binaryType)
    };
  }
  const packetType = PACKET_TYPES_REVERSE[type];
  if (!packetType) {
    return ERROR_PACKET;
  }
  return encodedPacket.length > 1 ? {
    type: PACKET_TYPES_REVERSE[type],
    data: encodedPacket.substring(1)
  } : {
    type: PACKET_TYPES_REVERSE[type]
  };
};
var decodeBase64Packet = (data, binaryType) => {
  if (withNativeArrayBuffer2) {
    const decoded = decode(data);
    return mapBinary(decoded, binaryType);
  } else {
    return { base64: true, data };
  }
};
var mapBinary = (data, binaryType) => {
  switch (binaryType) {
    case "blob":
      if (data instanceof Blob) {
        return data;
      } else {
        return new Blob([data]);
      }
    case "arraybuffer":
    default:
      if (data instanceof ArrayBuffer) {
        return data;
      } else {
        return data.buffer;
      }
  }
};

// node_modules/engine.io-parser/build/esm/index.js
var SEPARATOR = String.fromCharCode(30);
var encodePayload = (packets, callback) => {
  const length = packets.length;
  const encodedPackets = new Array(length);
  let count = 0;
  packets.forEach((packet, i) => {
    encodePacket(packet, false, (encodedPacket) => {
      encodedPackets[i] = encodedPacket;
      if (++count === length) {
        callback(encodedPackets.join(SEPARATOR));
      }
    });
  });
};
var decodePayload = (encodedPayload, binaryType) => {
  const encodedPackets = encodedPayload.split(SEPARATOR);
  const packets = [];
  for (let i = 0; i < encodedPackets.length; i++) {
    const decodedPacket = decodePacket(encodedPackets[i], binaryType);
    packets.push(decodedPacket);
    if (decodedPacket.type === "error") {
      break;
    }
  }
  return packets;
};
function createPacketEncoderStream() {
  return new TransformStream({
    transform(packet, controller) {
      encodePacketToBinary(packet, (encodedPacket) => {
        const payloadLength = encodedPacket.length;
        let header;
        if (payloadLength < 126) {
          header = new Uint8Array(1);
          new DataView(header.buffer).setUint8(0, payloadLength);
        } else if (payloadLength < 65536) {
          header = new Uint8Array(3);
          const view = new DataView(header.buffer);
          view.setUint8(0, 126);
          view.setUint16(1, payloadLength);
        } else {
          header = new Uint8Array(9);
          const view = new DataView(header.buffer);
          view.setUint8(0, 127);
          view.setBigUint64(1, BigInt(payloadLength));
        }
        if (packet.data && typeof packet.data !== "string") {
          header[0] |= 128;
        }
        controller.enqueue(header);
        controller.enqueue(encodedPacket);
      });
    }
  });
}
var TEXT_DECODER;
function totalLength(chunks) {
  return chunks.reduce((acc, chunk) => acc + chunk.length, 0);
}
function concatChunks(chunks, size) {
  if (chunks[0].length === size) {
    return chunks.shift();
  }
  const buffer = new Uint8Array(size);
  let j = 0;
  for (let i = 0; i < size; i++) {
    buffer[i] = chunks[0][j++];
    if (j === chunks[0].length) {
      chunks.shift();
      j = 0;
    }
  }
  if (chunks.length && j < chunks[0].length) {
    chunks[0] = chunks[0].slice(j);
  }
  return buffer;
}
function createPacketDecoderStream(maxPayload, binaryType) {
  if (!TEXT_DECODER) {
    TEXT_DECODER = new TextDecoder();
  }
  const chunks = [];
  let state = 0;
  let expectedLength = -1;
  let isBinary2 = false;
  return new TransformStream({
    transform(chunk, controller) {
      chunks.push(chunk);
      while (true) {
        if (state === 0) {
          if (totalLength(chunks) < 1) {
            break;
          }
          const header = concatChunks(chunks, 1);
          isBinary2 = (header[0] & 128) === 128;
          expectedLength = header[0] & 127;
          if (expectedLength < 126) {
            state = 3;
          } else if (expectedLength === 126) {
            state = 1;
          } else {
            state = 2;
          }
        } else if (state === 1) {
          if (totalLength(chunks) < 2) {
            break;
          }
          const headerArray = concatChunks(chunks, 2);
          expectedLength = new DataView(headerArray.buffer, headerArray.byteOffset, headerArray.length).getUint16(0);
          state = 3;
        } else if (state === 2) {
          if (totalLength(chunks) < 8) {
            break;
          }
          const headerArray = concatChunks(chunks, 8);
          const view = new DataView(headerArray.buffer, headerArray.byteOffset, headerArray.length);
          const n = view.getUint32(0);
          if (n > Math.pow(2, 53 - 32) - 1) {
            controller.enqueue(ERROR_PACKET);
            break;
          }
          expectedLength = n * Math.pow(2, 32) + view.getUint32(4);
          state = 3;
        } else {
          if (totalLength(chunks) < expectedLength) {
            break;
          }
          const data = concatChunks(chunks, expectedLength);
          controller.enqueue(decodePacket(isBinary2 ? data : TEXT_DECODER.decode(data), binaryType));
          state = 0;
        }
        if (expectedLength === 0 || expectedLength > maxPayload) {
          controller.enqueue(ERROR_PACKET);
          break;
        }
      }
    }
  });
}
var protocol = 4;

// node_modules/@socket.io/component-emitter/lib/esm/index.js
function Emitter(obj) {
  if (obj) return mixin(obj);
}
function mixin(obj) {
  for (var key in Emitter.prototype) {
    obj[key] = Emitter.prototype[key];
  }
  return obj;
}
Emitter.prototype.on = Emitter.prototype.addEventListener = function(event, fn) {
  this._callbacks = this._callbacks || {};
  (this._callbacks["$" + event] = this._callbacks["$" + event] || []).push(fn);
  return this;
};
Emitter.prototype.once = function(event, fn) {
  function on2() {
    this.off(event, on2);
    fn.apply(this, arguments);
  }
  on2.fn = fn;
  this.on(event, on2);
  return this;
};
Emitter.prototype.off = Emitter.prototype.removeListener = Emitter.prototype.removeAllListeners = Emitter.prototype.removeEventListener = function(event, fn) {
  this._callbacks = this._callbacks || {};
  if (0 == arguments.length) {
    this._callbacks = {};
    return this;
  }
  var callbacks = this._callbacks["$" + event];
  if (!callbacks) return this;
  if (1 == arguments.length) {
    delete this._callbacks["$" + event];
    return this;
  }
  var cb;
  for (var i = 0; i < callbacks.length; i++) {
    cb = callbacks[i];
    if (cb === fn || cb.fn === fn) {
      callbacks.splice(i, 1);
      break;
    }
  }
  if (callbacks.length === 0) {
    delete this._callbacks["$" + event];
  }
  return this;
};
Emitter.prototype.emit = function(event) {
  this._callbacks = this._callbacks || {};
  var args = new Array(arguments.length - 1), callbacks = this._callbacks["$" + event];
  for (var i = 1; i < arguments.length; i++) {
    args[i - 1] = arguments[i];
  }
  if (callbacks) {
    callbacks = callbacks.slice(0);
    for (var i = 0, len = callbacks.length; i < len; ++i) {
      callbacks[i].apply(this, args);
    }
  }
  return this;
};
Emitter.prototype.emitReserved = Emitter.prototype.emit;
Emitter.prototype.listeners = function(event) {
  this._callbacks = this._callbacks || {};
  return this._callbacks["$" + event] || [];
};
Emitter.prototype.hasListeners = function(event) {
  return !!this.listeners(event).length;
};

// node_modules/engine.io-client/build/esm/globals.js
var nextTick = (() => {
  const isPromiseAvailable = typeof Promise === "function" && typeof Promise.resolve === "function";
  if (isPromiseAvailable) {
    return (cb) => Promise.resolve().then(cb);
  } else {
    return (cb, setTimeoutFn) => setTimeoutFn(cb, 0);
  }
})();
var globalThisShim = (() => {
  if (typeof self !== "undefined") {
    return self;
  } else if (typeof window !== "undefined") {
    return window;
  } else {
    return Function("return this")();
  }
})();
var defaultBinaryType = "arraybuffer";
function createCookieJar() {
}

// node_modules/engine.io-client/build/esm/util.js
function pick(obj, ...attr) {
  return attr.reduce((acc, k) => {
    if (obj.hasOwnProperty(k)) {
      acc[k] = obj[k];
    }
    return acc;
  }, {});
}
var NATIVE_SET_TIMEOUT = globalThisShim.setTimeout;
var NATIVE_CLEAR_TIMEOUT = globalThisShim.clearTimeout;
function installTimerFunctions(obj, opts) {
  if (opts.useNativeTimers) {
    obj.setTimeoutFn = NATIVE_SET_TIMEOUT.bind(globalThisShim);
    obj.clearTimeoutFn = NATIVE_CLEAR_TIMEOUT.bind(globalThisShim);
  } else {
    obj.setTimeoutFn = globalThisShim.setTimeout.bind(globalThisShim);
    obj.clearTimeoutFn = globalThisShim.clearTimeout.bind(globalThisShim);
  }
}
var BASE64_OVERHEAD = 1.33;
function byteLength(obj) {
  if (typeof obj === "string") {
    return utf8Length(obj);
  }
  return Math.ceil((obj.byteLength || obj.size) * BASE64_OVERHEAD);
}
function utf8Length(str) {
  let c = 0, length = 0;
  for (let i = 0, l = str.length; i < l; i++) {
    c = str.charCodeAt(i);
    if (c < 128) {
      length += 1;
    } else if (c < 2048) {
      length += 2;
    } else if (c < 55296 || c >= 57344) {
      length += 3;
    } else {
      i++;
      length += 4;
    }
  }
  return length;
}
function randomString() {
  return Date.now().toString(36).substring(3) + Math.random().toString(36).substring(2, 5);
}

// node_modules/engine.io-client/build/esm/contrib/parseqs.js
function encode(obj) {
  let str = "";
  for (let i in obj) {
    if (obj.hasOwnProperty(i)) {
      if (str.length)
        str += "&";
      str += encodeURIComponent(i) + "=" + encodeURIComponent(obj[i]);
    }
  }
  return str;
}
function decode2(qs) {
  let qry = {};
  let pairs = qs.split("&");
  for (let i = 0, l = pairs.length; i < l; i++) {
    let pair = pairs[i].split("=");
    qry[decodeURIComponent(pair[0])] = decodeURIComponent(pair.slice(1).join("="));
  }
  return qry;
}

// node_modules/engine.io-client/build/esm/transport.js
var TransportError = class extends Error {
  constructor(reason, description, context) {
    super(reason);
    this.description = description;
    this.context = context;
    this.type = "TransportError";
  }
};
var Transport = class extends Emitter {
  /**
   * Transport abstract constructor.
   *
   * @param {Object} opts - options
   * @protected
   */
  constructor(opts) {
    super();
    this.writable = false;
    installTimerFunctions(this, opts);
    this.opts = opts;
    this.query = opts.query;
    this.socket = opts.socket;
    this.supportsBinary = !opts.forceBase64;
  }
  /**
   * Emits an error.
   *
   * @param {String} reason
   * @param description
   * @param context - the error context
   * @return {Transport} for chaining
   * @protected
   */
  onError(reason, description, context) {
    super.emitReserved("error", new TransportError(reason, description, context));
    return this;
  }
  /**
   * Opens the transport.
   */
  open() {
    this.readyState = "opening";
    this.doOpen();
    return this;
  }
  /**
   * Closes the transport.
   */
  close() {
    if (this.readyState === "opening" || this.readyState === "open") {
      this.doClose();
      this.onClose();
    }
    return this;
  }
  /**
   * Sends multiple packets.
   *
   * @param {Array} packets
   */
  send(packets) {
    if (this.readyState === "open") {
      this.write(packets);
    } else {
    }
  }
  /**
   * Called upon open
   *
   * @protected
   */
  onOpen() {
    this.readyState = "open";
    this.writable = true;
    super.emitReserved("open");
  }
  /**
   * Called with data.
   *
   * @param {String} data
   * @protected
   */
  onData(data) {
    const packet = decodePacket(data, this.socket.binaryType);
    this.onPacket(packet);
  }
  /**
   * Called with a decoded packet.
   *
   * @protected
   */
  onPacket(packet) {
    super.emitReserved("packet", packet);
  }
  /**
   * Called upon close.
   *
   * @protected
   */
  onClose(details) {
    this.readyState = "closed";
    super.emitReserved("close", details);
  }
  /**
   * Pauses the transport, in order not to lose packets during an upgrade.
   *
   * @param onPause
   */
  pause(onPause) {
  }
  createUri(schema, query = {}) {
    return schema + "://" + this._hostname() + this._port() + this.opts.path + this._query(query);
  }
  _hostname() {
    const hostname = this.opts.hostname;
    return hostname.indexOf(":") === -1 ? hostname : "[" + hostname + "]";
  }
  _port() {
    if (this.opts.port && (this.opts.secure && Number(this.opts.port) !== 443 || !this.opts.secure && Number(this.opts.port) !== 80)) {
      return ":" + this.opts.port;
    } else {
      return "";
    }
  }
  _query(query) {
    const encodedQuery = encode(query);
    return encodedQuery.length ? "?" + encodedQuery : "";
  }
};

// node_modules/engine.io-client/build/esm/transports/polling.js
var Polling = class extends Transport {
  constructor() {
    super(...arguments);
    this._polling = false;
  }
  get name() {
    return "polling";
  }
  /**
   * Opens the socket (triggers polling). We write a PING message to determine
   * when the transport is open.
   *
   * @protected
   */
  doOpen() {
    this._poll();
  }
  /**
   * Pauses polling.
   *
   * @param {Function} onPause - callback upon buffers are flushed and transport is paused
   * @package
   */
  pause(onPause) {
    this.readyState = "pausing";
    const pause = () => {
      this.readyState = "paused";
      onPause();
    };
    if (this._polling || !this.writable) {
      let total = 0;
      if (this._polling) {
        total++;
        this.once("pollComplete", function() {
          --total || pause();
        });
      }
      if (!this.writable) {
        total++;
        this.once("drain", function() {
          --total || pause();
        });
      }
    } else {
      pause();
    }
  }
  /**
   * Starts polling cycle.
   *
   * @private
   */
  _poll() {
    this._polling = true;
    this.doPoll();
    this.emitReserved("poll");
  }
  /**
   * Overloads onData to detect payloads.
   *
   * @protected
   */
  onData(data) {
    const callback = (packet) => {
      if ("opening" === this.readyState && packet.type === "open") {
        this.onOpen();
      }
      if ("close" === packet.type) {
        this.onClose({ description: "transport closed by the server" });
        return false;
      }
      this.onPacket(packet);
    };
    decodePayload(data, this.socket.binaryType).forEach(callback);
    if ("closed" !== this.readyState) {
      this._polling = false;
      this.emitReserved("pollComplete");
      if ("open" === this.readyState) {
        this._poll();
      } else {
      }
    }
  }
  /**
   * For polling, send a close packet.
   *
   * @protected
   */
  doClose() {
    const close = () => {
      this.write([{ type: "close" }]);
    };
    if ("open" === this.readyState) {
      close();
    } else {
      this.once("open", close);
    }
  }
  /**
   * Writes a packets payload.
   *
   * @param {Array} packets - data packets
   * @protected
   */
  write(packets) {
    this.writable = false;
    encodePayload(packets, (data) => {
      this.doWrite(data, () => {
        this.writable = true;
        this.emitReserved("drain");
      });
    });
  }
  /**
   * Generates uri for connection.
   *
   * @private
   */
  uri() {
    const schema = this.opts.secure ? "https" : "http";
    const query = this.query || {};
    if (false !== this.opts.timestampRequests) {
      query[this.opts.timestampParam] = randomString();
    }
    if (!this.supportsBinary && !query.sid) {
      query.b64 = 1;
    }
    return this.createUri(schema, query);
  }
};

// node_modules/engine.io-client/build/esm/contrib/has-cors.js
var value = false;
try {
  value = typeof XMLHttpRequest !== "undefined" && "withCredentials" in new XMLHttpRequest();
} catch (err) {
}
var hasCORS = value;

// node_modules/engine.io-client/build/esm/transports/polling-xhr.js
function empty() {
}
var BaseXHR = class extends Polling {
  /**
   * XHR Polling constructor.
   *
   * @param {Object} opts
   * @package
   */
  constructor(opts) {
    super(opts);
    if (typeof location !== "undefined") {
      const isSSL = "https:" === location.protocol;
      let port = location.port;
      if (!port) {
        port = isSSL ? "443" : "80";
      }
      this.xd = typeof location !== "undefined" && opts.hostname !== location.hostname || port !== opts.port;
    }
  }
  /**
   * Sends data.
   *
   * @param {String} data - data to send.
   * @param {Function} fn - called upon flush.
   * @private
   */
  doWrite(data, fn) {
    const req = this.request({
      method: "POST",
      data
    });
    req.on("success", fn);
    req.on("error", (xhrStatus, context) => {
      this.onError("xhr post error", xhrStatus, context);
    });
  }
  /**
   * Starts a poll cycle.
   *
   * @private
   */
  doPoll() {
    const req = this.request();
    req.on("data", this.onData.bind(this));
    req.on("error", (xhrStatus, context) => {
      this.onError("xhr poll error", xhrStatus, context);
    });
    this.pollXhr = req;
  }
};
var Request = class _Request extends Emitter {
  /**
   * Request constructor
   *
   * @param {Object} options
   * @package
   */
  constructor(createRequest, uri, opts) {
    super();
    this.createRequest = createRequest;
    installTimerFunctions(this, opts);
    this._opts = opts;
    this._method = opts.method || "GET";
    this._uri = uri;
    this._data = void 0 !== opts.data ? opts.data : null;
    this._create();
  }
  /**
   * Creates the XHR object and sends the request.
   *
   * @private
   */
  _create() {
    var _a;
    const opts = pick(this._opts, "agent", "pfx", "key", "passphrase", "cert", "ca", "ciphers", "rejectUnauthorized", "autoUnref");
    opts.xdomain = !!this._opts.xd;
    const xhr = this._xhr = this.createRequest(opts);
    try {
      xhr.open(this._method, this._uri, true);
      try {
        if (this._opts.extraHeaders) {
          xhr.setDisableHeaderCheck && xhr.setDisableHeaderCheck(true);
          for (let i in this._opts.extraHeaders) {
            if (this._opts.extraHeaders.hasOwnProperty(i)) {
              xhr.setRequestHeader(i, this._opts.extraHeaders[i]);
            }
          }
        }
      } catch (e) {
      }
      if ("POST" === this._method) {
        try {
          xhr.setRequestHeader("Content-type", "text/plain;charset=UTF-8");
        } catch (e) {
        }
      }
      try {
        xhr.setRequestHeader("Accept", "*/*");
      } catch (e) {
      }
      (_a = this._opts.cookieJar) === null || _a === void 0 ? void 0 : _a.addCookies(xhr);
      if ("withCredentials" in xhr) {
        xhr.withCredentials = this._opts.withCredentials;
      }
      if (this._opts.requestTimeout) {
        xhr.timeout = this._opts.requestTimeout;
      }
      xhr.onreadystatechange = () => {
        var _a2;
        if (xhr.readyState === 3) {
          (_a2 = this._opts.cookieJar) === null || _a2 === void 0 ? void 0 : _a2.parseCookies(
            // @ts-ignore
            xhr.getResponseHeader("set-cookie")
          );
        }
        if (4 !== xhr.readyState)
          return;
        if (200 === xhr.status || 1223 === xhr.status) {
          this._onLoad();
        } else {
          this.setTimeoutFn(() => {
            this._onError(typeof xhr.status === "number" ? xhr.status : 0);
          }, 0);
        }
      };
      xhr.send(this._data);
    } catch (e) {
      this.setTimeoutFn(() => {
        this._onError(e);
      }, 0);
      return;
    }
    if (typeof document !== "undefined") {
      this._index = _Request.requestsCount++;
      _Request.requests[this._index] = this;
    }
  }
  /**
   * Called upon error.
   *
   * @private
   */
  _onError(err) {
    this.emitReserved("error", err, this._xhr);
    this._cleanup(true);
  }
  /**
   * Cleans up house.
   *
   * @private
   */
  _cleanup(fromError) {
    if ("undefined" === typeof this._xhr || null === this._xhr) {
      return;
    }
    this._xhr.onreadystatechange = empty;
    if (fromError) {
      try {
        this._xhr.abort();
      } catch (e) {
      }
    }
    if (typeof document !== "undefined") {
      delete _Request.requests[this._index];
    }
    this._xhr = null;
  }
  /**
   * Called upon load.
   *
   * @private
   */
  _onLoad() {
    const data = this._xhr.responseText;
    if (data !== null) {
      this.emitReserved("data", data);
      this.emitReserved("success");
      this._cleanup();
    }
  }
  /**
   * Aborts the request.
   *
   * @package
   */
  abort() {
    this._cleanup();
  }
};
Request.requestsCount = 0;
Request.requests = {};
if (typeof document !== "undefined") {
  if (typeof attachEvent === "function") {
    attachEvent("onunload", unloadHandler);
  } else if (typeof addEventListener === "function") {
    const terminationEvent = "onpagehide" in globalThisShim ? "pagehide" : "unload";
    addEventListener(terminationEvent, unloadHandler, false);
  }
}
function unloadHandler() {
  for (let i in Request.requests) {
    if (Request.requests.hasOwnProperty(i)) {
      Request.requests[i].abort();
    }
  }
}
var hasXHR2 = (function() {
  const xhr = newRequest({
    xdomain: false
  });
  return xhr && xhr.responseType !== null;
})();
var XHR = class extends BaseXHR {
  constructor(opts) {
    super(opts);
    const forceBase64 = opts && opts.forceBase64;
    this.supportsBinary = hasXHR2 && !forceBase64;
  }
  request(opts = {}) {
    Object.assign(opts, { xd: this.xd }, this.opts);
    return new Request(newRequest, this.uri(), opts);
  }
};
function newRequest(opts) {
  const xdomain = opts.xdomain;
  try {
    if ("undefined" !== typeof XMLHttpRequest && (!xdomain || hasCORS)) {
      return new XMLHttpRequest();
    }
  } catch (e) {
  }
  if (!xdomain) {
    try {
      return new globalThisShim[["Active"].concat("Object").join("X")]("Microsoft.XMLHTTP");
    } catch (e) {
    }
  }
}

// node_modules/engine.io-client/build/esm/transports/websocket.js
var isReactNative = typeof navigator !== "undefined" && typeof navigator.product === "string" && navigator.product.toLowerCase() === "reactnative";
var BaseWS = class extends Transport {
  get name() {
    return "websocket";
  }
  doOpen() {
    const uri = this.uri();
    const protocols = this.opts.protocols;
    const opts = isReactNative ? {} : pick(this.opts, "agent", "perMessageDeflate", "pfx", "key", "passphrase", "cert", "ca", "ciphers", "rejectUnauthorized", "localAddress", "protocolVersion", "origin", "maxPayload", "family", "checkServerIdentity");
    if (this.opts.extraHeaders) {
      opts.headers = this.opts.extraHeaders;
    }
    try {
      this.ws = this.createSocket(uri, protocols, opts);
    } catch (err) {
      return this.emitReserved("error", err);
    }
    this.ws.binaryType = this.socket.binaryType;
    this.addEventListeners();
  }
  /**
   * Adds event listeners to the socket
   *
   * @private
   */
  addEventListeners() {
    this.ws.onopen = () => {
      if (this.opts.autoUnref) {
        this.ws._socket.unref();
      }
      this.onOpen();
    };
    this.ws.onclose = (closeEvent) => this.onClose({
      description: "websocket connection closed",
      context: closeEvent
    });
    this.ws.onmessage = (ev) => this.onData(ev.data);
    this.ws.onerror = (e) => this.onError("websocket error", e);
  }
  write(packets) {
    this.writable = false;
    for (let i = 0; i < packets.length; i++) {
      const packet = packets[i];
      const lastPacket = i === packets.length - 1;
      encodePacket(packet, this.supportsBinary, (data) => {
        try {
          this.doWrite(packet, data);
        } catch (e) {
        }
        if (lastPacket) {
          nextTick(() => {
            this.writable = true;
            this.emitReserved("drain");
          }, this.setTimeoutFn);
        }
      });
    }
  }
  doClose() {
    if (typeof this.ws !== "undefined") {
      this.ws.onerror = () => {
      };
      this.ws.close();
      this.ws = null;
    }
  }
  /**
   * Generates uri for connection.
   *
   * @private
   */
  uri() {
    const schema = this.opts.secure ? "wss" : "ws";
    const query = this.query || {};
    if (this.opts.timestampRequests) {
      query[this.opts.timestampParam] = randomString();
    }
    if (!this.supportsBinary) {
      query.b64 = 1;
    }
    return this.createUri(schema, query);
  }
};
var WebSocketCtor = globalThisShim.WebSocket || globalThisShim.MozWebSocket;
var WS = class extends BaseWS {
  createSocket(uri, protocols, opts) {
    return !isReactNative ? protocols ? new WebSocketCtor(uri, protocols) : new WebSocketCtor(uri) : new WebSocketCtor(uri, protocols, opts);
  }
  doWrite(_packet, data) {
    this.ws.send(data);
  }
};

// node_modules/engine.io-client/build/esm/transports/webtransport.js
var WT = class extends Transport {
  get name() {
    return "webtransport";
  }
  doOpen() {
    try {
      this._transport = new WebTransport(this.createUri("https"), this.opts.transportOptions[this.name]);
    } catch (err) {
      return this.emitReserved("error", err);
    }
    this._transport.closed.then(() => {
      this.onClose();
    }).catch((err) => {
      this.onError("webtransport error", err);
    });
    this._transport.ready.then(() => {
      this._transport.createBidirectionalStream().then((stream) => {
        const decoderStream = createPacketDecoderStream(Number.MAX_SAFE_INTEGER, this.socket.binaryType);
        const reader = stream.readable.pipeThrough(decoderStream).getReader();
        const encoderStream = createPacketEncoderStream();
        encoderStream.readable.pipeTo(stream.writable);
        this._writer = encoderStream.writable.getWriter();
        const read = () => {
          reader.read().then(({ done, value: value2 }) => {
            if (done) {
              return;
            }
            this.onPacket(value2);
            read();
          }).catch((err) => {
          });
        };
        read();
        const packet = { type: "open" };
        if (this.query.sid) {
          packet.data = `{"sid":"${this.query.sid}"}`;
        }
        this._writer.write(packet).then(() => this.onOpen());
      });
    });
  }
  write(packets) {
    this.writable = false;
    for (let i = 0; i < packets.length; i++) {
      const packet = packets[i];
      const lastPacket = i === packets.length - 1;
      this._writer.write(packet).then(() => {
        if (lastPacket) {
          nextTick(() => {
            this.writable = true;
            this.emitReserved("drain");
          }, this.setTimeoutFn);
        }
      });
    }
  }
  doClose() {
    var _a;
    (_a = this._transport) === null || _a === void 0 ? void 0 : _a.close();
  }
};

// node_modules/engine.io-client/build/esm/transports/index.js
var transports = {
  websocket: WS,
  webtransport: WT,
  polling: XHR
};

// node_modules/engine.io-client/build/esm/contrib/parseuri.js
var re = /^(?:(?![^:@\/?#]+:[^:@\/]*@)(http|https|ws|wss):\/\/)?((?:(([^:@\/?#]*)(?::([^:@\/?#]*))?)?@)?((?:[a-f0-9]{0,4}:){2,7}[a-f0-9]{0,4}|[^:\/?#]*)(?::(\d*))?)(((\/(?:[^?#](?![^?#\/]*\.[^?#\/.]+(?:[?#]|$)))*\/?)?([^?#\/]*))(?:\?([^#]*))?(?:#(.*))?)/;
var parts = [
  "source",
  "protocol",
  "authority",
  "userInfo",
  "user",
  "password",
  "host",
  "port",
  "relative",
  "path",
  "directory",
  "file",
  "query",
  "anchor"
];
function parse(str) {
  if (str.length > 8e3) {
    throw "URI too long";
  }
  const src = str, b = str.indexOf("["), e = str.indexOf("]");
  if (b != -1 && e != -1) {
    str = str.substring(0, b) + str.substring(b, e).replace(/:/g, ";") + str.substring(e, str.length);
  }
  let m = re.exec(str || ""), uri = {}, i = 14;
  while (i--) {
    uri[parts[i]] = m[i] || "";
  }
  if (b != -1 && e != -1) {
    uri.source = src;
    uri.host = uri.host.substring(1, uri.host.length - 1).replace(/;/g, ":");
    uri.authority = uri.authority.replace("[", "").replace("]", "").replace(/;/g, ":");
    uri.ipv6uri = true;
  }
  uri.pathNames = pathNames(uri, uri["path"]);
  uri.queryKey = queryKey(uri, uri["query"]);
  return uri;
}
function pathNames(obj, path) {
  const regx = /\/{2,9}/g, names = path.replace(regx, "/").split("/");
  if (path.slice(0, 1) == "/" || path.length === 0) {
    names.splice(0, 1);
  }
  if (path.slice(-1) == "/") {
    names.splice(names.length - 1, 1);
  }
  return names;
}
function queryKey(uri, query) {
  const data = {};
  query.replace(/(?:^|&)([^&=]*)=?([^&]*)/g, function($0, $1, $2) {
    if ($1) {
      data[$1] = $2;
    }
  });
  return data;
}

// node_modules/engine.io-client/build/esm/socket.js
var withEventListeners = typeof addEventListener === "function" && typeof removeEventListener === "function";
var OFFLINE_EVENT_LISTENERS = [];
if (withEventListeners) {
  addEventListener("offline", () => {
    OFFLINE_EVENT_LISTENERS.forEach((listener) => listener());
  }, false);
}
var Socket = class _Socket extends Emitter {
  constructor(uri, opts = {}) {
    var _a, _b;
    super();
    this.binaryType = defaultBinaryType;
    this.writeBuffer = [];
    this._prevBufferLen = 0;
    this._upgrades = [];
    this._pingInterval = -1;
    this._pingTimeout = -1;
    this._maxPayload = -1;
    this._pingTimeoutTime = Infinity;
    if (uri && "object" === typeof uri) {
      opts = uri;
      uri = null;
    }
    if (uri) {
      const parsedUri = parse(uri);
      opts.hostname = parsedUri.host;
      opts.secure = parsedUri.protocol === "https" || parsedUri.protocol === "wss";
      opts.port = parsedUri.port;
      if (parsedUri.query)
        opts.query = parsedUri.query;
    } else if (opts.host) {
      opts.hostname = parse(opts.host).host;
    }
    installTimerFunctions(this, opts);
    this.secure = null != opts.secure ? opts.secure : typeof location !== "undefined" && "https:" === location.protocol;
    if (opts.hostname && !opts.port) {
      opts.port = this.secure ? "443" : "80";
    }
    this.hostname = opts.hostname || (typeof location !== "undefined" ? location.hostname : "localhost");
    this.port = opts.port || (typeof location !== "undefined" && location.port ? location.port : this.secure ? "443" : "80");
    if (opts.transportImplementations && opts.transports) {
      throw new Error("specifying both 'transportImplementations' and 'transports' options is not supported");
    }
    if (opts.transportImplementations || ((_a = opts.transports) === null || _a === void 0 ? void 0 : _a.length) && typeof opts.transports[0] === "function") {
      this.transports = [];
      this._transportsByName = /* @__PURE__ */ Object.create(null);
      ((_b = opts.transportImplementations) !== null && _b !== void 0 ? _b : opts.transports).forEach((t2) => {
        const transportName = t2.prototype.name;
        this.transports.push(transportName);
        this._transportsByName[transportName] = t2;
      });
    } else {
      this.transports = opts.transports ? [...opts.transports] : ["polling", "websocket", "webtransport"];
      this._transportsByName = transports;
    }
    this.opts = Object.assign({
      path: "/engine.io",
      agent: false,
      withCredentials: false,
      upgrade: true,
      timestampParam: "t",
      rememberUpgrade: false,
      addTrailingSlash: true,
      rejectUnauthorized: true,
      perMessageDeflate: {
        threshold: 1024
      },
      transportOptions: {},
      closeOnBeforeunload: false
    }, opts);
    this.opts.path = this.opts.path.replace(/\/$/, "") + (this.opts.addTrailingSlash ? "/" : "");
    if (typeof this.opts.query === "string") {
      this.opts.query = decode2(this.opts.query);
    }
    if (withEventListeners) {
      if (this.opts.closeOnBeforeunload) {
        this._beforeunloadEventListener = () => {
          if (this.transport) {
            this.transport.removeAllListeners();
            this.transport.close();
          }
        };
        addEventListener("beforeunload", this._beforeunloadEventListener, false);
      }
      if (this.hostname !== "localhost") {
        this._offlineEventListener = () => {
          this._onClose("transport close", {
            description: "network connection lost"
          });
        };
        OFFLINE_EVENT_LISTENERS.push(this._offlineEventListener);
      }
    }
    if (this.opts.withCredentials) {
      this._cookieJar = createCookieJar();
    }
    this._open();
  }
  /**
   * Creates transport of the given type.
   *
   * @param {String} name - transport name
   * @return {Transport}
   * @private
   */
  createTransport(name) {
    const query = Object.assign({}, this.opts.query);
    query.EIO = protocol;
    query.transport = name;
    if (this.id)
      query.sid = this.id;
    const opts = Object.assign({}, this.opts, {
      query,
      socket: this,
      hostname: this.hostname,
      secure: this.secure,
      port: this.port
    }, this.opts.transportOptions[name]);
    return new this._transportsByName[name](opts);
  }
  /**
   * Initializes transport to use and starts probe.
   *
   * @private
   */
  _open() {
    if (this.transports.length === 0) {
      this.setTimeoutFn(() => {
        this.emitReserved("error", "No transports available");
      }, 0);
      return;
    }
    const transportName = this.opts.rememberUpgrade && _Socket.priorWebsocketSuccess && this.transports.indexOf("websocket") !== -1 ? "websocket" : this.transports[0];
    this.readyState = "opening";
    const transport = this.createTransport(transportName);
    transport.open();
    this.setTransport(transport);
  }
  /**
   * Sets the current transport. Disables the existing one (if any).
   *
   * @private
   */
  setTransport(transport) {
    if (this.transport) {
      this.transport.removeAllListeners();
    }
    this.transport = transport;
    transport.on("drain", this._onDrain.bind(this)).on("packet", this._onPacket.bind(this)).on("error", this._onError.bind(this)).on("close", (reason) => this._onClose("transport close", reason));
  }
  /**
   * Probes a transport.
   *
   * @param {String} name - transport name
   * @private
   */
  _probe(name) {
    let transport = this.createTransport(name);
    let failed = false;
    _Socket.priorWebsocketSuccess = false;
    const onTransportOpen = () => {
      if (failed)
        return;
      transport.send([{ type: "ping", data: "probe" }]);
      transport.once("packet", (msg) => {
        if (failed)
          return;
        if ("pong" === msg.type && "probe" === msg.data) {
          this.upgrading = true;
          this.emitReserved("upgrading", transport);
          if (!transport)
            return;
          _Socket.priorWebsocketSuccess = "websocket" === transport.name;
          this.transport.pause(() => {
            if (failed)
              return;
            if ("closed" === this.readyState)
              return;
            cleanup();
            this.setTransport(transport);
            transport.send([{ type: "upgrade" }]);
            this.emitReserved("upgrade", transport);
            transport = null;
            this.upgrading = false;
            this.flush();
          });
        } else {
          const err = new Error("probe error");
          err.transport = transport.name;
          this.emitReserved("upgradeError", err);
        }
      });
    };
    function freezeTransport() {
      if (failed)
        return;
      failed = true;
      cleanup();
      transport.close();
      transport = null;
    }
    const onerror = (err) => {
      const error = new Error("probe error: " + err);
      error.transport = transport.name;
      freezeTransport();
      this.emitReserved("upgradeError", error);
    };
    function onTransportClose() {
      onerror("transport closed");
    }
    function onclose() {
      onerror("socket closed");
    }
    function onupgrade(to) {
      if (transport && to.name !== transport.name) {
        freezeTransport();
      }
    }
    const cleanup = () => {
      transport.removeListener("open", onTransportOpen);
      transport.removeListener("error", onerror);
      transport.removeListener("close", onTransportClose);
      this.off("close", onclose);
      this.off("upgrading", onupgrade);
    };
    transport.once("open", onTransportOpen);
    transport.once("error", onerror);
    transport.once("close", onTransportClose);
    this.once("close", onclose);
    this.once("upgrading", onupgrade);
    if (this._upgrades.indexOf("webtransport") !== -1 && name !== "webtransport") {
      this.setTimeoutFn(() => {
        if (!failed) {
          transport.open();
        }
      }, 200);
    } else {
      transport.open();
    }
  }
  /**
   * Called when connection is deemed open.
   *
   * @private
   */
  onOpen() {
    this.readyState = "open";
    _Socket.priorWebsocketSuccess = "websocket" === this.transport.name;
    this.emitReserved("open");
    this.flush();
    if ("open" === this.readyState && this.opts.upgrade) {
      for (let i = 0; i < this._upgrades.length; i++) {
        this._probe(this._upgrades[i]);
      }
    }
  }
  /**
   * Handles a packet.
   *
   * @private
   */
  _onPacket(packet) {
    if ("opening" === this.readyState || "open" === this.readyState || "closing" === this.readyState) {
      this.emitReserved("packet", packet);
      this.emitReserved("heartbeat");
      switch (packet.type) {
        case "open":
          this.onHandshake(JSON.parse(packet.data));
          break;
        case "ping":
          this._sendPacket("pong");
          this.emitReserved("ping");
          this.emitReserved("pong");
          this._resetPingTimeout();
          break;
        case "error":
          const err = new Error("server error");
          err.code = packet.data;
          this._onError(err);
          break;
        case "message":
          this.emitReserved("data", packet.data);
          this.emitReserved("message", packet.data);
          break;
      }
    } else {
    }
  }
  /**
   * Called upon handshake completion.
   *
   * @param {Object} data - handshake obj
   * @private
   */
  onHandshake(data) {
    this.emitReserved("handshake", data);
    this.id = data.sid;
    this.transport.query.sid = data.sid;
    this._upgrades = this._filterUpgrades(data.upgrades);
    this._pingInterval = data.pingInterval;
    this._pingTimeout = data.pingTimeout;
    this._maxPayload = data.maxPayload;
    this.onOpen();
    if ("closed" === this.readyState)
      return;
    this._resetPingTimeout();
  }
  /**
   * Sets and resets ping timeout timer based on server pings.
   *
   * @private
   */
  _resetPingTimeout() {
    this.clearTimeoutFn(this._pingTimeoutTimer);
    const delay = this._pingInterval + this._pingTimeout;
    this._pingTimeoutTime = Date.now() + delay;
    this._pingTimeoutTimer = this.setTimeoutFn(() => {
      this._onClose("ping timeout");
    }, delay);
    if (this.opts.autoUnref) {
      this._pingTimeoutTimer.unref();
    }
  }
  /**
   * Called on `drain` event
   *
   * @private
   */
  _onDrain() {
    this.writeBuffer.splice(0, this._prevBufferLen);
    this._prevBufferLen = 0;
    if (0 === this.writeBuffer.length) {
      this.emitReserved("drain");
    } else {
      this.flush();
    }
  }
  /**
   * Flush write buffers.
   *
   * @private
   */
  flush() {
    if ("closed" !== this.readyState && this.transport.writable && !this.upgrading && this.writeBuffer.length) {
      const packets = this._getWritablePackets();
      this.transport.send(packets);
      this._prevBufferLen = packets.length;
      this.emitReserved("flush");
    }
  }
  /**
   * Ensure the encoded size of the writeBuffer is below the maxPayload value sent by the server (only for HTTP
   * long-polling)
   *
   * @private
   */
  _getWritablePackets() {
    const shouldCheckPayloadSize = this._maxPayload && this.transport.name === "polling" && this.writeBuffer.length > 1;
    if (!shouldCheckPayloadSize) {
      return this.writeBuffer;
    }
    let payloadSize = 1;
    for (let i = 0; i < this.writeBuffer.length; i++) {
      const data = this.writeBuffer[i].data;
      if (data) {
        payloadSize += byteLength(data);
      }
      if (i > 0 && payloadSize > this._maxPayload) {
        return this.writeBuffer.slice(0, i);
      }
      payloadSize += 2;
    }
    return this.writeBuffer;
  }
  /**
   * Checks whether the heartbeat timer has expired but the socket has not yet been notified.
   *
   * Note: this method is private for now because it does not really fit the WebSocket API, but if we put it in the
   * `write()` method then the message would not be buffered by the Socket.IO client.
   *
   * @return {boolean}
   * @private
   */
  /* private */
  _hasPingExpired() {
    if (!this._pingTimeoutTime)
      return true;
    const hasExpired = Date.now() > this._pingTimeoutTime;
    if (hasExpired) {
      this._pingTimeoutTime = 0;
      nextTick(() => {
        this._onClose("ping timeout");
      }, this.setTimeoutFn);
    }
    return hasExpired;
  }
  /**
   * Sends a message.
   *
   * @param {String} msg - message.
   * @param {Object} options.
   * @param {Function} fn - callback function.
   * @return {Socket} for chaining.
   */
  write(msg, options, fn) {
    this._sendPacket("message", msg, options, fn);
    return this;
  }
  /**
   * Sends a message. Alias of {@link Socket#write}.
   *
   * @param {String} msg - message.
   * @param {Object} options.
   * @param {Function} fn - callback function.
   * @return {Socket} for chaining.
   */
  send(msg, options, fn) {
    this._sendPacket("message", msg, options, fn);
    return this;
  }
  /**
   * Sends a packet.
   *
   * @param {String} type - packet type.
   * @param {String} data.
   * @param {Object} options.
   * @param {Function} fn - callback function.
   * @private
   */
  _sendPacket(type, data, options, fn) {
    if ("function" === typeof data) {
      fn = data;
      data = void 0;
    }
    if ("function" === typeof options) {
      fn = options;
      options = null;
    }
    if ("closing" === this.readyState || "closed" === this.readyState) {
      return;
    }
    options = options || {};
    options.compress = false !== options.compress;
    const packet = {
      type,
      data,
      options
    };
    this.emitReserved("packetCreate", packet);
    this.writeBuffer.push(packet);
    if (fn)
      this.once("flush", fn);
    this.flush();
  }
  /**
   * Closes the connection.
   */
  close() {
    const close = () => {
      this._onClose("forced close");
      this.transport.close();
    };
    const cleanupAndClose = () => {
      this.off("upgrade", cleanupAndClose);
      this.off("upgradeError", cleanupAndClose);
      close();
    };
    const waitForUpgrade = () => {
      this.once("upgrade", cleanupAndClose);
      this.once("upgradeError", cleanupAndClose);
    };
    if ("opening" === this.readyState || "open" === this.readyState) {
      this.readyState = "closing";
      if (this.writeBuffer.length) {
        this.once("drain", () => {
          if (this.upgrading) {
            waitForUpgrade();
          } else {
            close();
          }
        });
      } else if (this.upgrading) {
        waitForUpgrade();
      } else {
        close();
      }
    }
    return this;
  }
  /**
   * Called upon transport error
   *
   * @private
   */
  _onError(err) {
    _Socket.priorWebsocketSuccess = false;
    if (this.opts.tryAllTransports && this.transports.length > 1 && this.readyState === "opening") {
      this.transports.shift();
      return this._open();
    }
    this.emitReserved("error", err);
    this._onClose("transport error", err);
  }
  /**
   * Called upon transport close.
   *
   * @private
   */
  _onClose(reason, description) {
    if ("opening" === this.readyState || "open" === this.readyState || "closing" === this.readyState) {
      this.clearTimeoutFn(this._pingTimeoutTimer);
      this.transport.removeAllListeners("close");
      this.transport.close();
      this.transport.removeAllListeners();
      if (withEventListeners) {
        if (this._beforeunloadEventListener) {
          removeEventListener("beforeunload", this._beforeunloadEventListener, false);
        }
        if (this._offlineEventListener) {
          const i = OFFLINE_EVENT_LISTENERS.indexOf(this._offlineEventListener);
          if (i !== -1) {
            OFFLINE_EVENT_LISTENERS.splice(i, 1);
          }
        }
      }
      this.readyState = "closed";
      this.id = null;
      this.emitReserved("close", reason, description);
      this.writeBuffer = [];
      this._prevBufferLen = 0;
    }
  }
  /**
   * Filters upgrades, returning only those matching client transports.
   *
   * @param {Array} upgrades - server upgrades
   * @private
   */
  _filterUpgrades(upgrades) {
    const filteredUpgrades = [];
    for (let i = 0; i < upgrades.length; i++) {
      if (~this.transports.indexOf(upgrades[i]))
        filteredUpgrades.push(upgrades[i]);
    }
    return filteredUpgrades;
  }
};
Socket.protocol = protocol;

// node_modules/engine.io-client/build/esm/index.js
var protocol2 = Socket.protocol;

// node_modules/socket.io-client/build/esm/url.js
function url(uri, path = "", loc) {
  let obj = uri;
  loc = loc || typeof location !== "undefined" && location;
  if (null == uri)
    uri = loc.protocol + "//" + loc.host;
  if (typeof uri === "string") {
    if ("/" === uri.charAt(0)) {
      if ("/" === uri.charAt(1)) {
        uri = loc.protocol + uri;
      } else {
        uri = loc.host + uri;
      }
    }
    if (!/^(https?|wss?):\/\//.test(uri)) {
      if ("undefined" !== typeof loc) {
        uri = loc.protocol + "//" + uri;
      } else {
        uri = "https://" + uri;
      }
    }
    obj = parse(uri);
  }
  if (!obj.port) {
    if (/^(http|ws)$/.test(obj.protocol)) {
      obj.port = "80";
    } else if (/^(http|ws)s$/.test(obj.protocol)) {
      obj.port = "443";
    }
  }
  obj.path = obj.path || "/";
  const ipv6 = obj.host.indexOf(":") !== -1;
  const host = ipv6 ? "[" + obj.host + "]" : obj.host;
  obj.id = obj.protocol + "://" + host + ":" + obj.port + path;
  obj.href = obj.protocol + "://" + host + (loc && loc.port === obj.port ? "" : ":" + obj.port);
  return obj;
}

// node_modules/socket.io-parser/build/esm/index.js
var esm_exports = {};
__export(esm_exports, {
  Decoder: () => Decoder,
  Encoder: () => Encoder,
  PacketType: () => PacketType,
  isPacketValid: () => isPacketValid,
  protocol: () => protocol3
});

// node_modules/socket.io-parser/build/esm/is-binary.js
var withNativeArrayBuffer3 = typeof ArrayBuffer === "function";
var isView2 = (obj) => {
  return typeof ArrayBuffer.isView === "function" ? ArrayBuffer.isView(obj) : obj.buffer instanceof ArrayBuffer;
};
var toString = Object.prototype.toString;
var withNativeBlob2 = typeof Blob === "function" || typeof Blob !== "undefined" && toString.call(Blob) === "[object BlobConstructor]";
var withNativeFile = typeof File === "function" || typeof File !== "undefined" && toString.call(File) === "[object FileConstructor]";
function isBinary(obj) {
  return withNativeArrayBuffer3 && (obj instanceof ArrayBuffer || isView2(obj)) || withNativeBlob2 && obj instanceof Blob || withNativeFile && obj instanceof File;
}
function hasBinary(obj, toJSON) {
  if (!obj || typeof obj !== "object") {
    return false;
  }
  if (Array.isArray(obj)) {
    for (let i = 0, l = obj.length; i < l; i++) {
      if (hasBinary(obj[i])) {
        return true;
      }
    }
    return false;
  }
  if (isBinary(obj)) {
    return true;
  }
  if (obj.toJSON && typeof obj.toJSON === "function" && arguments.length === 1) {
    return hasBinary(obj.toJSON(), true);
  }
  for (const key in obj) {
    if (Object.prototype.hasOwnProperty.call(obj, key) && hasBinary(obj[key])) {
      return true;
    }
  }
  return false;
}

// node_modules/socket.io-parser/build/esm/binary.js
function deconstructPacket(packet) {
  const buffers = [];
  const packetData = packet.data;
  const pack = packet;
  pack.data = _deconstructPacket(packetData, buffers);
  pack.attachments = buffers.length;
  return { packet: pack, buffers };
}
function _deconstructPacket(data, buffers, toJSON) {
  if (!data)
    return data;
  if (isBinary(data)) {
    const placeholder = { _placeholder: true, num: buffers.length };
    buffers.push(data);
    return placeholder;
  } else if (Array.isArray(data)) {
    const newData = new Array(data.length);
    for (let i = 0; i < data.length; i++) {
      newData[i] = _deconstructPacket(data[i], buffers);
    }
    return newData;
  } else if (typeof data === "object" && !(data instanceof Date)) {
    if (data.toJSON && typeof data.toJSON === "function" && !toJSON) {
      return _deconstructPacket(data.toJSON(), buffers, true);
    }
    const newData = {};
    for (const key in data) {
      if (Object.prototype.hasOwnProperty.call(data, key)) {
        newData[key] = _deconstructPacket(data[key], buffers);
      }
    }
    return newData;
  }
  return data;
}
function reconstructPacket(packet, buffers) {
  packet.data = _reconstructPacket(packet.data, buffers);
  delete packet.attachments;
  return packet;
}
function _reconstructPacket(data, buffers) {
  if (!data)
    return data;
  if (data && data._placeholder === true) {
    const isIndexValid = typeof data.num === "number" && data.num >= 0 && data.num < buffers.length;
    if (isIndexValid) {
      return buffers[data.num];
    } else {
      throw new Error("illegal attachments");
    }
  } else if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      data[i] = _reconstructPacket(data[i], buffers);
    }
  } else if (typeof data === "object") {
    for (const key in data) {
      if (Object.prototype.hasOwnProperty.call(data, key)) {
        data[key] = _reconstructPacket(data[key], buffers);
      }
    }
  }
  return data;
}

// node_modules/socket.io-parser/build/esm/index.js
var RESERVED_EVENTS = [
  "connect",
  // used on the client side
  "connect_error",
  // used on the client side
  "disconnect",
  // used on both sides
  "disconnecting",
  // used on the server side
  "newListener",
  // used by the Node.js EventEmitter
  "removeListener"
  // used by the Node.js EventEmitter
];
var protocol3 = 5;
var PacketType;
(function(PacketType2) {
  PacketType2[PacketType2["CONNECT"] = 0] = "CONNECT";
  PacketType2[PacketType2["DISCONNECT"] = 1] = "DISCONNECT";
  PacketType2[PacketType2["EVENT"] = 2] = "EVENT";
  PacketType2[PacketType2["ACK"] = 3] = "ACK";
  PacketType2[PacketType2["CONNECT_ERROR"] = 4] = "CONNECT_ERROR";
  PacketType2[PacketType2["BINARY_EVENT"] = 5] = "BINARY_EVENT";
  PacketType2[PacketType2["BINARY_ACK"] = 6] = "BINARY_ACK";
})(PacketType || (PacketType = {}));
var Encoder = class {
  /**
   * Encoder constructor
   *
   * @param {function} replacer - custom replacer to pass down to JSON.parse
   */
  constructor(replacer) {
    this.replacer = replacer;
  }
  /**
   * Encode a packet as a single string if non-binary, or as a
   * buffer sequence, depending on packet type.
   *
   * @param {Object} obj - packet object
   */
  encode(obj) {
    if (obj.type === PacketType.EVENT || obj.type === PacketType.ACK) {
      if (hasBinary(obj)) {
        return this.encodeAsBinary({
          type: obj.type === PacketType.EVENT ? PacketType.BINARY_EVENT : PacketType.BINARY_ACK,
          nsp: obj.nsp,
          data: obj.data,
          id: obj.id
        });
      }
    }
    return [this.encodeAsString(obj)];
  }
  /**
   * Encode packet as string.
   */
  encodeAsString(obj) {
    let str = "" + obj.type;
    if (obj.type === PacketType.BINARY_EVENT || obj.type === PacketType.BINARY_ACK) {
      str += obj.attachments + "-";
    }
    if (obj.nsp && "/" !== obj.nsp) {
      str += obj.nsp + ",";
    }
    if (null != obj.id) {
      str += obj.id;
    }
    if (null != obj.data) {
      str += JSON.stringify(obj.data, this.replacer);
    }
    return str;
  }
  /**
   * Encode packet as 'buffer sequence' by removing blobs, and
   * deconstructing packet into object with placeholders and
   * a list of buffers.
   */
  encodeAsBinary(obj) {
    const deconstruction = deconstructPacket(obj);
    const pack = this.encodeAsString(deconstruction.packet);
    const buffers = deconstruction.buffers;
    buffers.unshift(pack);
    return buffers;
  }
};
var Decoder = class _Decoder extends Emitter {
  /**
   * Decoder constructor
   */
  constructor(opts) {
    super();
    this.opts = Object.assign({
      reviver: void 0,
      maxAttachments: 10
    }, typeof opts === "function" ? { reviver: opts } : opts);
  }
  /**
   * Decodes an encoded packet string into packet JSON.
   *
   * @param {String} obj - encoded packet
   */
  add(obj) {
    let packet;
    if (typeof obj === "string") {
      if (this.reconstructor) {
        throw new Error("got plaintext data when reconstructing a packet");
      }
      packet = this.decodeString(obj);
      const isBinaryEvent = packet.type === PacketType.BINARY_EVENT;
      if (isBinaryEvent || packet.type === PacketType.BINARY_ACK) {
        packet.type = isBinaryEvent ? PacketType.EVENT : PacketType.ACK;
        this.reconstructor = new BinaryReconstructor(packet);
      } else {
        super.emitReserved("decoded", packet);
      }
    } else if (isBinary(obj) || obj.base64) {
      if (!this.reconstructor) {
        throw new Error("got binary data when not reconstructing a packet");
      } else {
        packet = this.reconstructor.takeBinaryData(obj);
        if (packet) {
          this.reconstructor = null;
          super.emitReserved("decoded", packet);
        }
      }
    } else {
      throw new Error("Unknown type: " + obj);
    }
  }
  /**
   * Decode a packet String (JSON data)
   *
   * @param {String} str
   * @return {Object} packet
   */
  decodeString(str) {
    let i = 0;
    const p = {
      type: Number(str.charAt(0))
    };
    if (PacketType[p.type] === void 0) {
      throw new Error("unknown packet type " + p.type);
    }
    if (p.type === PacketType.BINARY_EVENT || p.type === PacketType.BINARY_ACK) {
      const start = i + 1;
      while (str.charAt(++i) !== "-" && i != str.length) {
      }
      const buf = str.substring(start, i);
      if (buf != Number(buf) || str.charAt(i) !== "-") {
        throw new Error("Illegal attachments");
      }
      const n = Number(buf);
      if (!isInteger(n) || n < 1) {
        throw new Error("Illegal attachments");
      } else if (n > this.opts.maxAttachments) {
        throw new Error("too many attachments");
      }
      p.attachments = n;
    }
    if ("/" === str.charAt(i + 1)) {
      const start = i + 1;
      while (++i) {
        const c = str.charAt(i);
        if ("," === c)
          break;
        if (i === str.length)
          break;
      }
      p.nsp = str.substring(start, i);
    } else {
      p.nsp = "/";
    }
    const next = str.charAt(i + 1);
    if ("" !== next && Number(next) == next) {
      const start = i + 1;
      while (++i) {
        const c = str.charAt(i);
        if (null == c || Number(c) != c) {
          --i;
          break;
        }
        if (i === str.length)
          break;
      }
      p.id = Number(str.substring(start, i + 1));
    }
    if (str.charAt(++i)) {
      const payload = this.tryParse(str.substr(i));
      if (_Decoder.isPayloadValid(p.type, payload)) {
        p.data = payload;
      } else {
        throw new Error("invalid payload");
      }
    }
    return p;
  }
  tryParse(str) {
    try {
      return JSON.parse(str, this.opts.reviver);
    } catch (e) {
      return false;
    }
  }
  static isPayloadValid(type, payload) {
    switch (type) {
      case PacketType.CONNECT:
        return isObject(payload);
      case PacketType.DISCONNECT:
        return payload === void 0;
      case PacketType.CONNECT_ERROR:
        return typeof payload === "string" || isObject(payload);
      case PacketType.EVENT:
      case PacketType.BINARY_EVENT:
        return Array.isArray(payload) && (typeof payload[0] === "number" || typeof payload[0] === "string" && RESERVED_EVENTS.indexOf(payload[0]) === -1);
      case PacketType.ACK:
      case PacketType.BINARY_ACK:
        return Array.isArray(payload);
    }
  }
  /**
   * Deallocates a parser's resources
   */
  destroy() {
    if (this.reconstructor) {
      this.reconstructor.finishedReconstruction();
      this.reconstructor = null;
    }
  }
};
var BinaryReconstructor = class {
  constructor(packet) {
    this.packet = packet;
    this.buffers = [];
    this.reconPack = packet;
  }
  /**
   * Method to be called when binary data received from connection
   * after a BINARY_EVENT packet.
   *
   * @param {Buffer | ArrayBuffer} binData - the raw binary data received
   * @return {null | Object} returns null if more binary data is expected or
   *   a reconstructed packet object if all buffers have been received.
   */
  takeBinaryData(binData) {
    this.buffers.push(binData);
    if (this.buffers.length === this.reconPack.attachments) {
      const packet = reconstructPacket(this.reconPack, this.buffers);
      this.finishedReconstruction();
      return packet;
    }
    return null;
  }
  /**
   * Cleans up binary packet reconstruction variables.
   */
  finishedReconstruction() {
    this.reconPack = null;
    this.buffers = [];
  }
};
function isNamespaceValid(nsp) {
  return typeof nsp === "string";
}
var isInteger = Number.isInteger || function(value2) {
  return typeof value2 === "number" && isFinite(value2) && Math.floor(value2) === value2;
};
function isAckIdValid(id) {
  return id === void 0 || isInteger(id);
}
function isObject(value2) {
  return Object.prototype.toString.call(value2) === "[object Object]";
}
function isDataValid(type, payload) {
  switch (type) {
    case PacketType.CONNECT:
      return payload === void 0 || isObject(payload);
    case PacketType.DISCONNECT:
      return payload === void 0;
    case PacketType.EVENT:
      return Array.isArray(payload) && (typeof payload[0] === "number" || typeof payload[0] === "string" && RESERVED_EVENTS.indexOf(payload[0]) === -1);
    case PacketType.ACK:
      return Array.isArray(payload);
    case PacketType.CONNECT_ERROR:
      return typeof payload === "string" || isObject(payload);
    default:
      return false;
  }
}
function isPacketValid(packet) {
  return isNamespaceValid(packet.nsp) && isAckIdValid(packet.id) && isDataValid(packet.type, packet.data);
}

// node_modules/socket.io-client/build/esm/on.js
function on(obj, ev, fn) {
  obj.on(ev, fn);
  return function subDestroy() {
    obj.off(ev, fn);
  };
}

// node_modules/socket.io-client/build/esm/socket.js
var RESERVED_EVENTS2 = Object.freeze({
  connect: 1,
  connect_error: 1,
  disconnect: 1,
  disconnecting: 1,
  // EventEmitter reserved events: https://nodejs.org/api/events.html#events_event_newlistener
  newListener: 1,
  removeListener: 1
});
var Socket2 = class extends Emitter {
  /**
   * `Socket` constructor.
   */
  constructor(io, nsp, opts) {
    super();
    this.connected = false;
    this.recovered = false;
    this.receiveBuffer = [];
    this.sendBuffer = [];
    this._queue = [];
    this._queueSeq = 0;
    this.ids = 0;
    this.acks = {};
    this.flags = {};
    this.io = io;
    this.nsp = nsp;
    if (opts && opts.auth) {
      this.auth = opts.auth;
    }
    this._opts = Object.assign({}, opts);
    if (this.io._autoConnect)
      this.open();
  }
  /**
   * Whether the socket is currently disconnected
   *
   * @example
   * const socket = io();
   *
   * socket.on("connect", () => {
   *   console.log(socket.disconnected); // false
   * });
   *
   * socket.on("disconnect", () => {
   *   console.log(socket.disconnected); // true
   * });
   */
  get disconnected() {
    return !this.connected;
  }
  /**
   * Subscribe to open, close and packet events
   *
   * @private
   */
  subEvents() {
    if (this.subs)
      return;
    const io = this.io;
    this.subs = [
      on(io, "open", this.onopen.bind(this)),
      on(io, "packet", this.onpacket.bind(this)),
      on(io, "error", this.onerror.bind(this)),
      on(io, "close", this.onclose.bind(this))
    ];
  }
  /**
   * Whether the Socket will try to reconnect when its Manager connects or reconnects.
   *
   * @example
   * const socket = io();
   *
   * console.log(socket.active); // true
   *
   * socket.on("disconnect", (reason) => {
   *   if (reason === "io server disconnect") {
   *     // the disconnection was initiated by the server, you need to manually reconnect
   *     console.log(socket.active); // false
   *   }
   *   // else the socket will automatically try to reconnect
   *   console.log(socket.active); // true
   * });
   */
  get active() {
    return !!this.subs;
  }
  /**
   * "Opens" the socket.
   *
   * @example
   * const socket = io({
   *   autoConnect: false
   * });
   *
   * socket.connect();
   */
  connect() {
    if (this.connected)
      return this;
    this.subEvents();
    if (!this.io["_reconnecting"])
      this.io.open();
    if ("open" === this.io._readyState)
      this.onopen();
    return this;
  }
  /**
   * Alias for {@link connect()}.
   */
  open() {
    return this.connect();
  }
  /**
   * Sends a `message` event.
   *
   * This method mimics the WebSocket.send() method.
   *
   * @see https://developer.mozilla.org/en-US/docs/Web/API/WebSocket/send
   *
   * @example
   * socket.send("hello");
   *
   * // this is equivalent to
   * socket.emit("message", "hello");
   *
   * @return self
   */
  send(...args) {
    args.unshift("message");
    this.emit.apply(this, args);
    return this;
  }
  /**
   * Override `emit`.
   * If the event is in `events`, it's emitted normally.
   *
   * @example
   * socket.emit("hello", "world");
   *
   * // all serializable datastructures are supported (no need to call JSON.stringify)
   * socket.emit("hello", 1, "2", { 3: ["4"], 5: Uint8Array.from([6]) });
   *
   * // with an acknowledgement from the server
   * socket.emit("hello", "world", (val) => {
   *   // ...
   * });
   *
   * @return self
   */
  emit(ev, ...args) {
    var _a, _b, _c;
    if (RESERVED_EVENTS2.hasOwnProperty(ev)) {
      throw new Error('"' + ev.toString() + '" is a reserved event name');
    }
    args.unshift(ev);
    if (this._opts.retries && !this.flags.fromQueue && !this.flags.volatile) {
      this._addToQueue(args);
      return this;
    }
    const packet = {
      type: PacketType.EVENT,
      data: args
    };
    packet.options = {};
    packet.options.compress = this.flags.compress !== false;
    if ("function" === typeof args[args.length - 1]) {
      const id = this.ids++;
      const ack = args.pop();
      this._registerAckCallback(id, ack);
      packet.id = id;
    }
    const isTransportWritable = (_b = (_a = this.io.engine) === null || _a === void 0 ? void 0 : _a.transport) === null || _b === void 0 ? void 0 : _b.writable;
    const isConnected = this.connected && !((_c = this.io.engine) === null || _c === void 0 ? void 0 : _c._hasPingExpired());
    const discardPacket = this.flags.volatile && !isTransportWritable;
    if (discardPacket) {
    } else if (isConnected) {
      this.notifyOutgoingListeners(packet);
      this.packet(packet);
    } else {
      this.sendBuffer.push(packet);
    }
    this.flags = {};
    return this;
  }
  /**
   * @private
   */
  _registerAckCallback(id, ack) {
    var _a;
    const timeout = (_a = this.flags.timeout) !== null && _a !== void 0 ? _a : this._opts.ackTimeout;
    if (timeout === void 0) {
      this.acks[id] = ack;
      return;
    }
    const timer = this.io.setTimeoutFn(() => {
      delete this.acks[id];
      for (let i = 0; i < this.sendBuffer.length; i++) {
        if (this.sendBuffer[i].id === id) {
          this.sendBuffer.splice(i, 1);
        }
      }
      ack.call(this, new Error("operation has timed out"));
    }, timeout);
    const fn = (...args) => {
      this.io.clearTimeoutFn(timer);
      ack.apply(this, args);
    };
    fn.withError = true;
    this.acks[id] = fn;
  }
  /**
   * Emits an event and waits for an acknowledgement
   *
   * @example
   * // without timeout
   * const response = await socket.emitWithAck("hello", "world");
   *
   * // with a specific timeout
   * try {
   *   const response = await socket.timeout(1000).emitWithAck("hello", "world");
   * } catch (err) {
   *   // the server did not acknowledge the event in the given delay
   * }
   *
   * @return a Promise that will be fulfilled when the server acknowledges the event
   */
  emitWithAck(ev, ...args) {
    return new Promise((resolve, reject) => {
      const fn = (arg1, arg2) => {
        return arg1 ? reject(arg1) : resolve(arg2);
      };
      fn.withError = true;
      args.push(fn);
      this.emit(ev, ...args);
    });
  }
  /**
   * Add the packet to the queue.
   * @param args
   * @private
   */
  _addToQueue(args) {
    let ack;
    if (typeof args[args.length - 1] === "function") {
      ack = args.pop();
    }
    const packet = {
      id: this._queueSeq++,
      tryCount: 0,
      pending: false,
      args,
      flags: Object.assign({ fromQueue: true }, this.flags)
    };
    args.push((err, ...responseArgs) => {
      if (packet !== this._queue[0]) {
      }
      const hasError = err !== null;
      if (hasError) {
        if (packet.tryCount > this._opts.retries) {
          this._queue.shift();
          if (ack) {
            ack(err);
          }
        }
      } else {
        this._queue.shift();
        if (ack) {
          ack(null, ...responseArgs);
        }
      }
      packet.pending = false;
      return this._drainQueue();
    });
    this._queue.push(packet);
    this._drainQueue();
  }
  /**
   * Send the first packet of the queue, and wait for an acknowledgement from the server.
   * @param force - whether to resend a packet that has not been acknowledged yet
   *
   * @private
   */
  _drainQueue(force = false) {
    if (!this.connected || this._queue.length === 0) {
      return;
    }
    const packet = this._queue[0];
    if (packet.pending && !force) {
      return;
    }
    packet.pending = true;
    packet.tryCount++;
    this.flags = packet.flags;
    this.emit.apply(this, packet.args);
  }
  /**
   * Sends a packet.
   *
   * @param packet
   * @private
   */
  packet(packet) {
    packet.nsp = this.nsp;
    this.io._packet(packet);
  }
  /**
   * Called upon engine `open`.
   *
   * @private
   */
  onopen() {
    if (typeof this.auth == "function") {
      this.auth((data) => {
        this._sendConnectPacket(data);
      });
    } else {
      this._sendConnectPacket(this.auth);
    }
  }
  /**
   * Sends a CONNECT packet to initiate the Socket.IO session.
   *
   * @param data
   * @private
   */
  _sendConnectPacket(data) {
    this.packet({
      type: PacketType.CONNECT,
      data: this._pid ? Object.assign({ pid: this._pid, offset: this._lastOffset }, data) : data
    });
  }
  /**
   * Called upon engine or manager `error`.
   *
   * @param err
   * @private
   */
  onerror(err) {
    if (!this.connected) {
      this.emitReserved("connect_error", err);
    }
  }
  /**
   * Called upon engine `close`.
   *
   * @param reason
   * @param description
   * @private
   */
  onclose(reason, description) {
    this.connected = false;
    delete this.id;
    this.emitReserved("disconnect", reason, description);
    this._clearAcks();
  }
  /**
   * Clears the acknowledgement handlers upon disconnection, since the client will never receive an acknowledgement from
   * the server.
   *
   * @private
   */
  _clearAcks() {
    Object.keys(this.acks).forEach((id) => {
      const isBuffered = this.sendBuffer.some((packet) => String(packet.id) === id);
      if (!isBuffered) {
        const ack = this.acks[id];
        delete this.acks[id];
        if (ack.withError) {
          ack.call(this, new Error("socket has been disconnected"));
        }
      }
    });
  }
  /**
   * Called with socket packet.
   *
   * @param packet
   * @private
   */
  onpacket(packet) {
    const sameNamespace = packet.nsp === this.nsp;
    if (!sameNamespace)
      return;
    switch (packet.type) {
      case PacketType.CONNECT:
        if (packet.data && packet.data.sid) {
          this.onconnect(packet.data.sid, packet.data.pid);
        } else {
          this.emitReserved("connect_error", new Error("It seems you are trying to reach a Socket.IO server in v2.x with a v3.x client, but they are not compatible (more information here: https://socket.io/docs/v3/migrating-from-2-x-to-3-0/)"));
        }
        break;
      case PacketType.EVENT:
      case PacketType.BINARY_EVENT:
        this.onevent(packet);
        break;
      case PacketType.ACK:
      case PacketType.BINARY_ACK:
        this.onack(packet);
        break;
      case PacketType.DISCONNECT:
        this.ondisconnect();
        break;
      case PacketType.CONNECT_ERROR:
        this.destroy();
        const err = new Error(packet.data.message);
        err.data = packet.data.data;
        this.emitReserved("connect_error", err);
        break;
    }
  }
  /**
   * Called upon a server event.
   *
   * @param packet
   * @private
   */
  onevent(packet) {
    const args = packet.data || [];
    if (null != packet.id) {
      args.push(this.ack(packet.id));
    }
    if (this.connected) {
      this.emitEvent(args);
    } else {
      this.receiveBuffer.push(Object.freeze(args));
    }
  }
  emitEvent(args) {
    if (this._anyListeners && this._anyListeners.length) {
      const listeners = this._anyListeners.slice();
      for (const listener of listeners) {
        listener.apply(this, args);
      }
    }
    super.emit.apply(this, args);
    if (this._pid && args.length && typeof args[args.length - 1] === "string") {
      this._lastOffset = args[args.length - 1];
    }
  }
  /**
   * Produces an ack callback to emit with an event.
   *
   * @private
   */
  ack(id) {
    const self2 = this;
    let sent = false;
    return function(...args) {
      if (sent)
        return;
      sent = true;
      self2.packet({
        type: PacketType.ACK,
        id,
        data: args
      });
    };
  }
  /**
   * Called upon a server acknowledgement.
   *
   * @param packet
   * @private
   */
  onack(packet) {
    const ack = this.acks[packet.id];
    if (typeof ack !== "function") {
      return;
    }
    delete this.acks[packet.id];
    if (ack.withError) {
      packet.data.unshift(null);
    }
    ack.apply(this, packet.data);
  }
  /**
   * Called upon server connect.
   *
   * @private
   */
  onconnect(id, pid) {
    this.id = id;
    this.recovered = pid && this._pid === pid;
    this._pid = pid;
    this.connected = true;
    this.emitBuffered();
    this._drainQueue(true);
    this.emitReserved("connect");
  }
  /**
   * Emit buffered events (received and emitted).
   *
   * @private
   */
  emitBuffered() {
    this.receiveBuffer.forEach((args) => this.emitEvent(args));
    this.receiveBuffer = [];
    this.sendBuffer.forEach((packet) => {
      this.notifyOutgoingListeners(packet);
      this.packet(packet);
    });
    this.sendBuffer = [];
  }
  /**
   * Called upon server disconnect.
   *
   * @private
   */
  ondisconnect() {
    this.destroy();
    this.onclose("io server disconnect");
  }
  /**
   * Called upon forced client/server side disconnections,
   * this method ensures the manager stops tracking us and
   * that reconnections don't get triggered for this.
   *
   * @private
   */
  destroy() {
    if (this.subs) {
      this.subs.forEach((subDestroy) => subDestroy());
      this.subs = void 0;
    }
    this.io["_destroy"](this);
  }
  /**
   * Disconnects the socket manually. In that case, the socket will not try to reconnect.
   *
   * If this is the last active Socket instance of the {@link Manager}, the low-level connection will be closed.
   *
   * @example
   * const socket = io();
   *
   * socket.on("disconnect", (reason) => {
   *   // console.log(reason); prints "io client disconnect"
   * });
   *
   * socket.disconnect();
   *
   * @return self
   */
  disconnect() {
    if (this.connected) {
      this.packet({ type: PacketType.DISCONNECT });
    }
    this.destroy();
    if (this.connected) {
      this.onclose("io client disconnect");
    }
    return this;
  }
  /**
   * Alias for {@link disconnect()}.
   *
   * @return self
   */
  close() {
    return this.disconnect();
  }
  /**
   * Sets the compress flag.
   *
   * @example
   * socket.compress(false).emit("hello");
   *
   * @param compress - if `true`, compresses the sending data
   * @return self
   */
  compress(compress) {
    this.flags.compress = compress;
    return this;
  }
  /**
   * Sets a modifier for a subsequent event emission that the event message will be dropped when this socket is not
   * ready to send messages.
   *
   * @example
   * socket.volatile.emit("hello"); // the server may or may not receive it
   *
   * @returns self
   */
  get volatile() {
    this.flags.volatile = true;
    return this;
  }
  /**
   * Sets a modifier for a subsequent event emission that the callback will be called with an error when the
   * given number of milliseconds have elapsed without an acknowledgement from the server:
   *
   * @example
   * socket.timeout(5000).emit("my-event", (err) => {
   *   if (err) {
   *     // the server did not acknowledge the event in the given delay
   *   }
   * });
   *
   * @returns self
   */
  timeout(timeout) {
    this.flags.timeout = timeout;
    return this;
  }
  /**
   * Adds a listener that will be fired when any event is emitted. The event name is passed as the first argument to the
   * callback.
   *
   * @example
   * socket.onAny((event, ...args) => {
   *   console.log(`got ${event}`);
   * });
   *
   * @param listener
   */
  onAny(listener) {
    this._anyListeners = this._anyListeners || [];
    this._anyListeners.push(listener);
    return this;
  }
  /**
   * Adds a listener that will be fired when any event is emitted. The event name is passed as the first argument to the
   * callback. The listener is added to the beginning of the listeners array.
   *
   * @example
   * socket.prependAny((event, ...args) => {
   *   console.log(`got event ${event}`);
   * });
   *
   * @param listener
   */
  prependAny(listener) {
    this._anyListeners = this._anyListeners || [];
    this._anyListeners.unshift(listener);
    return this;
  }
  /**
   * Removes the listener that will be fired when any event is emitted.
   *
   * @example
   * const catchAllListener = (event, ...args) => {
   *   console.log(`got event ${event}`);
   * }
   *
   * socket.onAny(catchAllListener);
   *
   * // remove a specific listener
   * socket.offAny(catchAllListener);
   *
   * // or remove all listeners
   * socket.offAny();
   *
   * @param listener
   */
  offAny(listener) {
    if (!this._anyListeners) {
      return this;
    }
    if (listener) {
      const listeners = this._anyListeners;
      for (let i = 0; i < listeners.length; i++) {
        if (listener === listeners[i]) {
          listeners.splice(i, 1);
          return this;
        }
      }
    } else {
      this._anyListeners = [];
    }
    return this;
  }
  /**
   * Returns an array of listeners that are listening for any event that is specified. This array can be manipulated,
   * e.g. to remove listeners.
   */
  listenersAny() {
    return this._anyListeners || [];
  }
  /**
   * Adds a listener that will be fired when any event is emitted. The event name is passed as the first argument to the
   * callback.
   *
   * Note: acknowledgements sent to the server are not included.
   *
   * @example
   * socket.onAnyOutgoing((event, ...args) => {
   *   console.log(`sent event ${event}`);
   * });
   *
   * @param listener
   */
  onAnyOutgoing(listener) {
    this._anyOutgoingListeners = this._anyOutgoingListeners || [];
    this._anyOutgoingListeners.push(listener);
    return this;
  }
  /**
   * Adds a listener that will be fired when any event is emitted. The event name is passed as the first argument to the
   * callback. The listener is added to the beginning of the listeners array.
   *
   * Note: acknowledgements sent to the server are not included.
   *
   * @example
   * socket.prependAnyOutgoing((event, ...args) => {
   *   console.log(`sent event ${event}`);
   * });
   *
   * @param listener
   */
  prependAnyOutgoing(listener) {
    this._anyOutgoingListeners = this._anyOutgoingListeners || [];
    this._anyOutgoingListeners.unshift(listener);
    return this;
  }
  /**
   * Removes the listener that will be fired when any event is emitted.
   *
   * @example
   * const catchAllListener = (event, ...args) => {
   *   console.log(`sent event ${event}`);
   * }
   *
   * socket.onAnyOutgoing(catchAllListener);
   *
   * // remove a specific listener
   * socket.offAnyOutgoing(catchAllListener);
   *
   * // or remove all listeners
   * socket.offAnyOutgoing();
   *
   * @param [listener] - the catch-all listener (optional)
   */
  offAnyOutgoing(listener) {
    if (!this._anyOutgoingListeners) {
      return this;
    }
    if (listener) {
      const listeners = this._anyOutgoingListeners;
      for (let i = 0; i < listeners.length; i++) {
        if (listener === listeners[i]) {
          listeners.splice(i, 1);
          return this;
        }
      }
    } else {
      this._anyOutgoingListeners = [];
    }
    return this;
  }
  /**
   * Returns an array of listeners that are listening for any event that is specified. This array can be manipulated,
   * e.g. to remove listeners.
   */
  listenersAnyOutgoing() {
    return this._anyOutgoingListeners || [];
  }
  /**
   * Notify the listeners for each packet sent
   *
   * @param packet
   *
   * @private
   */
  notifyOutgoingListeners(packet) {
    if (this._anyOutgoingListeners && this._anyOutgoingListeners.length) {
      const listeners = this._anyOutgoingListeners.slice();
      for (const listener of listeners) {
        listener.apply(this, packet.data);
      }
    }
  }
};

// node_modules/socket.io-client/build/esm/contrib/backo2.js
function Backoff(opts) {
  opts = opts || {};
  this.ms = opts.min || 100;
  this.max = opts.max || 1e4;
  this.factor = opts.factor || 2;
  this.jitter = opts.jitter > 0 && opts.jitter <= 1 ? opts.jitter : 0;
  this.attempts = 0;
}
Backoff.prototype.duration = function() {
  var ms = this.ms * Math.pow(this.factor, this.attempts++);
  if (this.jitter) {
    var rand = Math.random();
    var deviation = Math.floor(rand * this.jitter * ms);
    ms = (Math.floor(rand * 10) & 1) == 0 ? ms - deviation : ms + deviation;
  }
  return Math.min(ms, this.max) | 0;
};
Backoff.prototype.reset = function() {
  this.attempts = 0;
};
Backoff.prototype.setMin = function(min) {
  this.ms = min;
};
Backoff.prototype.setMax = function(max) {
  this.max = max;
};
Backoff.prototype.setJitter = function(jitter) {
  this.jitter = jitter;
};

// node_modules/socket.io-client/build/esm/manager.js
var Manager = class extends Emitter {
  constructor(uri, opts) {
    var _a;
    super();
    this.nsps = {};
    this.subs = [];
    if (uri && "object" === typeof uri) {
      opts = uri;
      uri = void 0;
    }
    opts = opts || {};
    opts.path = opts.path || "/socket.io";
    this.opts = opts;
    installTimerFunctions(this, opts);
    this.reconnection(opts.reconnection !== false);
    this.reconnectionAttempts(opts.reconnectionAttempts || Infinity);
    this.reconnectionDelay(opts.reconnectionDelay || 1e3);
    this.reconnectionDelayMax(opts.reconnectionDelayMax || 5e3);
    this.randomizationFactor((_a = opts.randomizationFactor) !== null && _a !== void 0 ? _a : 0.5);
    this.backoff = new Backoff({
      min: this.reconnectionDelay(),
      max: this.reconnectionDelayMax(),
      jitter: this.randomizationFactor()
    });
    this.timeout(null == opts.timeout ? 2e4 : opts.timeout);
    this._readyState = "closed";
    this.uri = uri;
    const _parser = opts.parser || esm_exports;
    this.encoder = new _parser.Encoder();
    this.decoder = new _parser.Decoder();
    this._autoConnect = opts.autoConnect !== false;
    if (this._autoConnect)
      this.open();
  }
  reconnection(v) {
    if (!arguments.length)
      return this._reconnection;
    this._reconnection = !!v;
    if (!v) {
      this.skipReconnect = true;
    }
    return this;
  }
  reconnectionAttempts(v) {
    if (v === void 0)
      return this._reconnectionAttempts;
    this._reconnectionAttempts = v;
    return this;
  }
  reconnectionDelay(v) {
    var _a;
    if (v === void 0)
      return this._reconnectionDelay;
    this._reconnectionDelay = v;
    (_a = this.backoff) === null || _a === void 0 ? void 0 : _a.setMin(v);
    return this;
  }
  randomizationFactor(v) {
    var _a;
    if (v === void 0)
      return this._randomizationFactor;
    this._randomizationFactor = v;
    (_a = this.backoff) === null || _a === void 0 ? void 0 : _a.setJitter(v);
    return this;
  }
  reconnectionDelayMax(v) {
    var _a;
    if (v === void 0)
      return this._reconnectionDelayMax;
    this._reconnectionDelayMax = v;
    (_a = this.backoff) === null || _a === void 0 ? void 0 : _a.setMax(v);
    return this;
  }
  timeout(v) {
    if (!arguments.length)
      return this._timeout;
    this._timeout = v;
    return this;
  }
  /**
   * Starts trying to reconnect if reconnection is enabled and we have not
   * started reconnecting yet
   *
   * @private
   */
  maybeReconnectOnOpen() {
    if (!this._reconnecting && this._reconnection && this.backoff.attempts === 0) {
      this.reconnect();
    }
  }
  /**
   * Sets the current transport `socket`.
   *
   * @param {Function} fn - optional, callback
   * @return self
   * @public
   */
  open(fn) {
    if (~this._readyState.indexOf("open"))
      return this;
    this.engine = new Socket(this.uri, this.opts);
    const socket = this.engine;
    const self2 = this;
    this._readyState = "opening";
    this.skipReconnect = false;
    const openSubDestroy = on(socket, "open", function() {
      self2.onopen();
      fn && fn();
    });
    const onError = (err) => {
      this.cleanup();
      this._readyState = "closed";
      this.emitReserved("error", err);
      if (fn) {
        fn(err);
      } else {
        this.maybeReconnectOnOpen();
      }
    };
    const errorSub = on(socket, "error", onError);
    if (false !== this._timeout) {
      const timeout = this._timeout;
      const timer = this.setTimeoutFn(() => {
        openSubDestroy();
        onError(new Error("timeout"));
        socket.close();
      }, timeout);
      if (this.opts.autoUnref) {
        timer.unref();
      }
      this.subs.push(() => {
        this.clearTimeoutFn(timer);
      });
    }
    this.subs.push(openSubDestroy);
    this.subs.push(errorSub);
    return this;
  }
  /**
   * Alias for open()
   *
   * @return self
   * @public
   */
  connect(fn) {
    return this.open(fn);
  }
  /**
   * Called upon transport open.
   *
   * @private
   */
  onopen() {
    this.cleanup();
    this._readyState = "open";
    this.emitReserved("open");
    const socket = this.engine;
    this.subs.push(
      on(socket, "ping", this.onping.bind(this)),
      on(socket, "data", this.ondata.bind(this)),
      on(socket, "error", this.onerror.bind(this)),
      on(socket, "close", this.onclose.bind(this)),
      // @ts-ignore
      on(this.decoder, "decoded", this.ondecoded.bind(this))
    );
  }
  /**
   * Called upon a ping.
   *
   * @private
   */
  onping() {
    this.emitReserved("ping");
  }
  /**
   * Called with data.
   *
   * @private
   */
  ondata(data) {
    try {
      this.decoder.add(data);
    } catch (e) {
      this.onclose("parse error", e);
    }
  }
  /**
   * Called when parser fully decodes a packet.
   *
   * @private
   */
  ondecoded(packet) {
    nextTick(() => {
      this.emitReserved("packet", packet);
    }, this.setTimeoutFn);
  }
  /**
   * Called upon socket error.
   *
   * @private
   */
  onerror(err) {
    this.emitReserved("error", err);
  }
  /**
   * Creates a new socket for the given `nsp`.
   *
   * @return {Socket}
   * @public
   */
  socket(nsp, opts) {
    let socket = this.nsps[nsp];
    if (!socket) {
      socket = new Socket2(this, nsp, opts);
      this.nsps[nsp] = socket;
    } else if (this._autoConnect && !socket.active) {
      socket.connect();
    }
    return socket;
  }
  /**
   * Called upon a socket close.
   *
   * @param socket
   * @private
   */
  _destroy(socket) {
    const nsps = Object.keys(this.nsps);
    for (const nsp of nsps) {
      const socket2 = this.nsps[nsp];
      if (socket2.active) {
        return;
      }
    }
    this._close();
  }
  /**
   * Writes a packet.
   *
   * @param packet
   * @private
   */
  _packet(packet) {
    const encodedPackets = this.encoder.encode(packet);
    for (let i = 0; i < encodedPackets.length; i++) {
      this.engine.write(encodedPackets[i], packet.options);
    }
  }
  /**
   * Clean up transport subscriptions and packet buffer.
   *
   * @private
   */
  cleanup() {
    this.subs.forEach((subDestroy) => subDestroy());
    this.subs.length = 0;
    this.decoder.destroy();
  }
  /**
   * Close the current socket.
   *
   * @private
   */
  _close() {
    this.skipReconnect = true;
    this._reconnecting = false;
    this.onclose("forced close");
  }
  /**
   * Alias for close()
   *
   * @private
   */
  disconnect() {
    return this._close();
  }
  /**
   * Called when:
   *
   * - the low-level engine is closed
   * - the parser encountered a badly formatted packet
   * - all sockets are disconnected
   *
   * @private
   */
  onclose(reason, description) {
    var _a;
    this.cleanup();
    (_a = this.engine) === null || _a === void 0 ? void 0 : _a.close();
    this.backoff.reset();
    this._readyState = "closed";
    this.emitReserved("close", reason, description);
    if (this._reconnection && !this.skipReconnect) {
      this.reconnect();
    }
  }
  /**
   * Attempt a reconnection.
   *
   * @private
   */
  reconnect() {
    if (this._reconnecting || this.skipReconnect)
      return this;
    const self2 = this;
    if (this.backoff.attempts >= this._reconnectionAttempts) {
      this.backoff.reset();
      this.emitReserved("reconnect_failed");
      this._reconnecting = false;
    } else {
      const delay = this.backoff.duration();
      this._reconnecting = true;
      const timer = this.setTimeoutFn(() => {
        if (self2.skipReconnect)
          return;
        this.emitReserved("reconnect_attempt", self2.backoff.attempts);
        if (self2.skipReconnect)
          return;
        self2.open((err) => {
          if (err) {
            self2._reconnecting = false;
            self2.reconnect();
            this.emitReserved("reconnect_error", err);
          } else {
            self2.onreconnect();
          }
        });
      }, delay);
      if (this.opts.autoUnref) {
        timer.unref();
      }
      this.subs.push(() => {
        this.clearTimeoutFn(timer);
      });
    }
  }
  /**
   * Called upon successful reconnect.
   *
   * @private
   */
  onreconnect() {
    const attempt = this.backoff.attempts;
    this._reconnecting = false;
    this.backoff.reset();
    this.emitReserved("reconnect", attempt);
  }
};

// node_modules/socket.io-client/build/esm/index.js
var cache = {};
function lookup2(uri, opts) {
  if (typeof uri === "object") {
    opts = uri;
    uri = void 0;
  }
  opts = opts || {};
  const parsed = url(uri, opts.path || "/socket.io");
  const source = parsed.source;
  const id = parsed.id;
  const path = parsed.path;
  const sameNamespace = cache[id] && path in cache[id]["nsps"];
  const newConnection = opts.forceNew || opts["force new connection"] || false === opts.multiplex || sameNamespace;
  let io;
  if (newConnection) {
    io = new Manager(source, opts);
  } else {
    if (!cache[id]) {
      cache[id] = new Manager(source, opts);
    }
    io = cache[id];
  }
  if (parsed.query && !opts.query) {
    opts.query = parsed.queryKey;
  }
  return io.socket(parsed.path, opts);
}
Object.assign(lookup2, {
  Manager,
  Socket: Socket2,
  io: lookup2,
  connect: lookup2
});

// src/geometry.js
function cellOf(x, y, size, w = 1, h = 1) {
  return [Math.floor((x + w * size / 2) / size), Math.floor((y + h * size / 2) / size)];
}
function line(a, b) {
  let [x0, y0] = a;
  const [x1, y1] = b;
  const dx = Math.abs(x1 - x0);
  const dy = -Math.abs(y1 - y0);
  const sx = x1 > x0 ? 1 : -1;
  const sy = y1 > y0 ? 1 : -1;
  let err = dx + dy;
  const out = [];
  for (; ; ) {
    out.push([x0, y0]);
    if (x0 === x1 && y0 === y1) return out;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}
function gridSize(scene) {
  const g = scene?.grid;
  const size = typeof g === "number" ? g : (
    /** @type {{size?: number} | undefined} */
    g?.size ?? scene?.dimensions?.size
  );
  return size !== void 0 && size > 0 ? size : 100;
}
function watchedMove(token, changes, watch, size) {
  const entries = watch?.watches;
  if (!Array.isArray(entries) || entries.length === 0) return false;
  if (!("x" in changes) && !("y" in changes)) return false;
  const w = changes.width ?? token.width ?? 1;
  const h = changes.height ?? token.height ?? 1;
  const start = cellOf(token.x, token.y, size, token.width ?? 1, token.height ?? 1);
  const end = cellOf(changes.x ?? token.x, changes.y ?? token.y, size, w, h);
  if (start[0] === end[0] && start[1] === end[1]) return false;
  return watchedEntry(token, line(start, end), watch) > 0;
}
function xyOf(cell, size, w = 1, h = 1) {
  return [(cell[0] + 0.5) * size - w * size / 2, (cell[1] + 0.5) * size - h * size / 2];
}
function stepCells(points, size, w = 1, h = 1) {
  const cells = [];
  const legs = [];
  const levels = [];
  let prev = null;
  let level = null;
  points.forEach((p, i) => {
    const c = cellOf(p.x, p.y, size, p.width ?? w, p.height ?? h);
    level = p.level ?? level;
    const steps = prev === null ? [c] : line(prev, c).slice(1);
    for (const step of steps) {
      cells.push(step);
      legs.push(i);
      levels.push(level);
    }
    prev = c;
  });
  return { cells, legs, levels };
}
function applies(m, token, level) {
  if (m.token && m.token !== token._id && m.token !== token.id) return false;
  if (m.exclude && (m.exclude === token._id || m.exclude === token.id)) return false;
  return !m.levels?.length || level != null && m.levels.includes(level);
}
function watchedEntry(token, cells, watch, levels, only = () => true) {
  const entries = watch?.watches;
  if (!Array.isArray(entries) || entries.length === 0 || cells.length < 2) return -1;
  const at = (i) => levels?.[i] ?? null;
  let first = -1;
  for (const m of entries) {
    if (!only(m)) continue;
    let found = -1;
    if (m.cells == null) {
      found = cells.findIndex((c, i) => i > 0 && (c[0] !== cells[0][0] || c[1] !== cells[0][1]) && applies(m, token, at(i)));
    } else {
      const set = new Set(m.cells.map(([x, y]) => `${x},${y}`));
      const inside = (i) => set.has(`${cells[i][0]},${cells[i][1]}`) && applies(m, token, at(i));
      for (let i = 1; i < cells.length; i++) {
        if (inside(i) && !inside(i - 1)) {
          found = i;
          break;
        }
      }
    }
    if (found > 0 && (first < 0 || found < first)) first = found;
  }
  return first;
}
function pathLength(cells, metric = "alternating", distance = 5) {
  let total = 0;
  let diagonals = 0;
  for (let i = 1; i < cells.length; i++) {
    const dx = Math.abs(cells[i][0] - cells[i - 1][0]);
    const dy = Math.abs(cells[i][1] - cells[i - 1][1]);
    const diag = Math.min(dx, dy);
    if (metric === "chebyshev") total += Math.max(dx, dy);
    else if (metric === "euclidean") total += Math.hypot(dx, dy);
    else if (metric === "manhattan") total += dx + dy;
    else {
      total += Math.abs(dx - dy) + diag + Math.floor((diagonals % 2 + diag) / 2);
      diagonals += diag;
    }
  }
  return total * distance;
}

// src/ruler.js
var RULER_COLORS = Object.freeze({
  walk: 3390542,
  // within one action
  run: 15849526,
  // both actions: a run, up to 3x speed
  sneak: 4161494,
  // sneak movement while sneaking
  over: 15147300
  // beyond what the rules allow: the move would be refused
});
function budgetTier(b, feet) {
  const within = (limit) => limit !== null && limit !== void 0 && feet <= limit + 1e-6;
  if (!b.turn) return "over";
  if (b.sneak !== null && b.sneak !== void 0) return within(b.sneak) ? "sneak" : "over";
  if (within(b.walk)) return "walk";
  if (within(b.run)) return "run";
  return "over";
}
function plannedLength(doc, waypoint, b) {
  const size = gridSize(doc.parent);
  const chain = [waypoint];
  for (let w = waypoint.previous; w && w.stage === "planned"; w = w.previous) {
    if (!w.intermediate || !w.previous || w.previous.stage !== "planned") chain.push(w);
  }
  chain.reverse();
  const w0 = doc.width ?? 1;
  const h0 = doc.height ?? 1;
  const cell = (p) => cellOf(p.x, p.y, size, p.width ?? w0, p.height ?? h0);
  const here = cellOf(doc._source.x, doc._source.y, size, w0, h0);
  let leg = [here];
  let total = 0;
  let level = (
    /** @type {import("../types/foundry-v14").TokenDocumentV14} */
    doc.level ?? null
  );
  let elevation = doc._source.elevation ?? 0;
  chain.forEach((p, i) => {
    const c = cell(p);
    const last = leg[leg.length - 1];
    if (c[0] !== last[0] || c[1] !== last[1]) leg.push(c);
    const to = (
      /** @type {import("../types/foundry-v14").Leveled<RulerWaypoint>} */
      p
    );
    if (to.level && level && to.level !== level) total += Math.abs((p.elevation ?? elevation) - elevation);
    level = to.level ?? level;
    elevation = p.elevation ?? elevation;
    if (p.checkpoint && i < chain.length - 1) {
      total += pathLength(leg, b.metric, b.distance ?? 5);
      leg = [c];
    }
  });
  return total + pathLength(leg, b.metric, b.distance ?? 5);
}
function budgetRuler(Base, enabled = () => true) {
  return class VttbridgeTokenRuler extends Base {
    /** @param {RulerWaypoint} waypoint */
    _getSegmentStyle(waypoint) {
      const style = super._getSegmentStyle(waypoint);
      const color = this.vttbridgeColor(waypoint);
      if (color !== null && style && (style.width ?? 0) > 0) style.color = color;
      return style;
    }
    /** @param {RulerWaypoint} waypoint @param {foundry.grid.BaseGrid.Offset3D} offset */
    _getGridHighlightStyle(waypoint, offset) {
      const style = super._getGridHighlightStyle(waypoint, offset);
      const color = this.vttbridgeColor(waypoint);
      if (color !== null && style && style.alpha !== 0) style.color = color;
      return style;
    }
    /**
     * The colour of the path up to `waypoint`, or null for Foundry's own.
     * @param {RulerWaypoint} waypoint @returns {number | null}
     */
    vttbridgeColor(waypoint) {
      if (waypoint?.stage !== "planned" || !enabled()) return null;
      const doc = this.token?.document;
      const b = doc?.getFlag("vttbridge", "budget");
      if (!doc || !b) return null;
      return RULER_COLORS[budgetTier(b, plannedLength(doc, waypoint, b))];
    }
  };
}

// src/i18n.js
var MODULE_ID = "vttbridge";
function t(key, data) {
  const id = `VTTBRIDGE.${key}`;
  const i18n = game.i18n;
  if (!i18n) return id;
  if (!data) return i18n.localize(id);
  return i18n.format(id, Object.fromEntries(Object.entries(data).map(([k, v]) => [k, String(v)])));
}
function notify(level, key, data) {
  ui.notifications?.[level](t(key, data));
}

// src/holdregions.js
var HOLD_TYPE = (
  /** @type {const} */
  `${MODULE_ID}.hold`
);
var onEnter = null;
function holdBehaviorClass(handler) {
  onEnter = handler;
  class HoldBehavior extends foundry.data.regionBehaviors.RegionBehaviorType {
    /** No settings of its own: the region's flags say whom it watches. */
    static defineSchema() {
      return {};
    }
    static events = { [CONST.REGION_EVENTS.TOKEN_MOVE_IN]: HoldBehavior.onMoveIn };
    /**
     * @this {HoldBehavior}
     * @param {RegionDocument.RegionEvent} event
     */
    static async onMoveIn(event) {
      if (!event.user?.isSelf || event.name !== CONST.REGION_EVENTS.TOKEN_MOVE_IN) return;
      const data = (
        /** @type {{token: TokenDocumentV14, movement: MovementV14}} */
        /** @type {unknown} */
        event.data
      );
      const watch = this.region?.getFlag(MODULE_ID, "hold");
      if (!watch || !accepts(watch, data.token)) return;
      onEnter?.(data.token, data.movement);
    }
  }
  return HoldBehavior;
}
function accepts(watch, doc) {
  if (watch.token && watch.token !== doc.id) return false;
  return !(watch.exclude && watch.exclude === doc.id);
}
function isHoldRegion(region) {
  return Boolean(region.getFlag(MODULE_ID, "hold"));
}
function wanted(scene, watch) {
  const size = gridSize(scene);
  return (watch?.watches ?? []).filter((m) => m.cells?.length).map((m) => {
    const key = JSON.stringify([m.cells, m.token ?? null, m.exclude ?? null, m.levels ?? null]);
    return {
      key,
      data: {
        name: t("Hold.RegionName"),
        shapes: (m.cells ?? []).map(([x, y]) => ({ type: "rectangle", x: x * size, y: y * size, width: size, height: size, rotation: 0, hole: false })),
        levels: m.levels?.length ? [...m.levels] : null,
        behaviors: [{ type: HOLD_TYPE, name: t("Hold.BehaviorName"), system: {} }],
        flags: { [MODULE_ID]: { hold: { key, token: m.token ?? null, exclude: m.exclude ?? null } } }
      }
    };
  });
}
async function syncHoldRegions(scene, options) {
  const want = wanted(scene, scene.getFlag(MODULE_ID, "watch"));
  const have = scene.regions.contents.filter(isHoldRegion);
  const keys = new Set(want.map((w) => w.key));
  const stale = have.filter((r) => !keys.has(r.getFlag(MODULE_ID, "hold")?.key ?? "")).map((r) => r.id ?? "");
  const kept = new Set(have.map((r) => r.getFlag(MODULE_ID, "hold")?.key));
  const fresh = want.filter((w) => !kept.has(w.key)).map((w) => w.data);
  if (stale.length) await scene.deleteEmbeddedDocuments("Region", stale, options);
  if (fresh.length) await scene.createEmbeddedDocuments(
    "Region",
    /** @type {never} */
    fresh,
    options
  );
  return stale.length + fresh.length;
}
function enteredHold(doc, movement) {
  const scene = doc.parent;
  const watch = scene?.getFlag(MODULE_ID, "watch");
  if (!scene || !watch?.watches?.length || !movement.pending?.waypoints?.length) return false;
  const size = gridSize(scene);
  const points = [movement.origin, ...movement.passed.waypoints];
  const { cells, levels } = stepCells(points, size, doc.width ?? 1, doc.height ?? 1);
  const at = watchedEntry(doc, cells, watch, levels, (m) => m.cells !== null);
  const end = cellOf(doc._source.x, doc._source.y, size, doc.width ?? 1, doc.height ?? 1);
  return at > 0 && cells[at][0] === end[0] && cells[at][1] === end[1];
}

// src/prompts.js
var QUERY = (
  /** @type {const} */
  "vttbridge.prompt"
);
function escapeHtml(text) {
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => map[c] ?? c);
}
function queriesApi() {
  return Number(game.release?.generation ?? 0) >= 13;
}
async function askDialog(data) {
  const { DialogV2 } = foundry.applications.api;
  let shown = null;
  const timer = data.timeout ? setTimeout(() => shown?.close(), data.timeout * 1e3) : null;
  const wait = data.timeout ? t("Prompt.Wait", { default: data.default, seconds: data.timeout }) : "";
  try {
    const choice = await DialogV2.wait({
      window: { title: t("Prompt.Title") },
      content: `<p>${escapeHtml(data.question)}</p>${wait ? `<p class="hint">${escapeHtml(wait)}</p>` : ""}`,
      buttons: data.options.map((o) => ({ action: o, label: o, default: o === data.default })),
      rejectClose: false,
      render: (_event, dialog) => {
        shown = dialog;
      }
    });
    return typeof choice === "string" && data.options.includes(choice) ? choice : null;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
function registerQueries() {
  if (!queriesApi() || !CONFIG.queries) return;
  CONFIG.queries[QUERY] = async (data) => askDialog(data);
}

// src/effects.js
var CommandError = class extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
};
function statusEffect({ id, name, img }) {
  const entry = { id, name: name ?? id, img: img ?? "icons/svg/aura.svg" };
  const list = (
    /** @type {unknown} */
    CONFIG.statusEffects
  );
  if (Array.isArray(list)) {
    const known = list.find((e) => e.id === id);
    if (known) return (
      /** @type {typeof entry} */
      known
    );
    if (name || img) list.push(Number(game.release?.generation ?? 0) >= 12 ? entry : { id, name: entry.name, label: entry.name, icon: entry.img });
    return entry;
  }
  const byId = (
    /** @type {Record<string, typeof entry>} */
    list
  );
  if (!byId[id] && (name || img)) byId[id] = entry;
  return byId[id] ?? entry;
}
function liveEffect(actor, id) {
  for (const e of actor.effects) {
    const effect = (
      /** @type {ActiveEffectV14} */
      /** @type {unknown} */
      e
    );
    if (effect.getFlag(MODULE_ID, "status") === id && !effect.duration.expired && !effect.disabled) return effect;
  }
  return void 0;
}
async function setStatus(token, status, options) {
  const actor = token.actor;
  const v14 = Number(game.release?.generation ?? 0) >= 14;
  if (actor && v14 && (status.duration || actor.effects.some((e) => e.getFlag(MODULE_ID, "status") === status.id))) {
    return setTimedEffect(actor, status, options);
  }
  if (actor && typeof actor.toggleStatusEffect === "function") return actor.toggleStatusEffect(status.id, { active: status.active });
  const v11 = (
    /** @type {{toggleActiveEffect?: (s: object, o: {active: boolean}) => Promise<unknown>}} */
    /** @type {unknown} */
    token
  );
  if (typeof v11.toggleActiveEffect === "function") return v11.toggleActiveEffect(statusEffect(status), { active: status.active });
  throw new CommandError("no_status_effects", "This Foundry version cannot toggle status effects.");
}
async function setTimedEffect(actor, status, options) {
  const live = liveEffect(actor, status.id);
  if (!status.active) {
    if (live) await live.delete(options);
    return false;
  }
  if (live) return true;
  const look = statusEffect(status);
  const data = {
    name: look.name ?? status.id,
    img: look.img,
    statuses: [status.id],
    duration: status.duration ?? void 0,
    flags: { [MODULE_ID]: { status: status.id } }
  };
  await actor.createEmbeddedDocuments("ActiveEffect", [
    /** @type {never} */
    data
  ], options);
  return true;
}

// src/module.js
var VERSION = "0.1.0";
var NAMESPACE = "/foundry";
var PROTOCOL = 1;
var CLOSED_HOLDS_KEPT = 200;
var RELAY_SLACK_MS = 500;
var OUTBOX_MAX = 200;
var QUERY_SLACK_S = 2;
var FINAL_REFUSALS = ["bad_auth", "wrong_key", "unknown_world", "unsupported_protocol"];
var FLAG = MODULE_ID;
function newId() {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
function plain(value2) {
  return value2 === void 0 ? value2 : JSON.parse(JSON.stringify(value2));
}
function dimensionsOf(scene) {
  const d = scene.dimensions;
  return d?.width > 0 && d?.height > 0 ? { dimensions: { width: d.width, height: d.height } } : {};
}
function toObject(doc) {
  return (
    /** @type {Record<string, any>} */
    doc.toObject()
  );
}
function hashText(text) {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = (h << 5) + h + text.charCodeAt(i) >>> 0;
  return h.toString(36);
}
function setting(key) {
  try {
    return game.settings?.get(MODULE_ID, key);
  } catch {
    return void 0;
  }
}
function generation() {
  return Number(game.release?.generation ?? 0);
}
function movementApi() {
  return generation() >= 13;
}
function regionHolds() {
  return generation() >= 14 && Boolean(CONFIG.RegionBehavior?.dataModels?.[HOLD_TYPE]);
}
function isPrimaryGM() {
  const active = game.users?.activeGM;
  if (active !== void 0) return Boolean(active?.isSelf);
  return Boolean(game.user?.isGM);
}
function activeScene() {
  return game.scenes?.active ?? canvas?.scene ?? null;
}
function gmIds() {
  return (game.users?.filter((u) => u.isGM) ?? []).map((u) => u.id ?? "");
}
function whisperIds(list) {
  const out = [];
  for (const id of list ?? []) {
    if (id === "GM") out.push(...gmIds());
    else out.push(id);
  }
  return out;
}
function ownWrite(mark) {
  return Boolean(mark) && !mark?.fallback && !mark?.split;
}
function markOf(options) {
  return (
    /** @type {Record<string, Mark> | undefined} */
    options?.[FLAG]
  );
}
function storedSeq(key) {
  if (!key) return null;
  try {
    const v = globalThis.localStorage?.getItem(key);
    if (v === null || v === void 0 || v === "") return null;
    const n = Number(v);
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch {
    return null;
  }
}
function watchOf(scene) {
  const watch = scene?.getFlag(MODULE_ID, "watch");
  return watch?.watches?.length ? watch : null;
}
function gmOnline() {
  return Boolean(game.users?.activeGM ?? game.users?.find((u) => u.isGM && u.active));
}
function isSelf(user) {
  return Boolean(user?.isSelf);
}
function movementOf(doc) {
  return (
    /** @type {MovementV14} */
    /** @type {unknown} */
    doc.movement
  );
}
function levelOf(doc) {
  return (
    /** @type {TokenDocumentV14} */
    doc.level ?? null
  );
}
var WAYPOINT_KEYS = (
  /** @type {const} */
  ["x", "y", "elevation", "width", "height", "shape", "action", "snapped", "explicit", "checkpoint", "level"]
);
function moveWaypoints(waypoints) {
  return waypoints.filter((w) => !w.intermediate).map((w) => Object.fromEntries(WAYPOINT_KEYS.filter((k) => w[k] !== void 0).map((k) => [k, w[k]])));
}
function explicitWaypoints(waypoints) {
  return waypoints.filter((w) => !w.intermediate).map((w) => ({ x: w.x, y: w.y, ...w.action ? { action: w.action } : {}, ...w.level ? { level: w.level, elevation: w.elevation } : {} }));
}
function sameCell(a, b, size, doc) {
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const ca = cellOf(a.x, a.y, size, a.width ?? w, a.height ?? h);
  const cb = cellOf(b.x, b.y, size, b.width ?? w, b.height ?? h);
  return ca[0] === cb[0] && ca[1] === cb[1] && (a.level ?? null) === (b.level ?? null);
}
function stopMovement(token, movementId) {
  const m = token.movement;
  if (!m || m.id !== movementId) return;
  if (isSelf(m.user)) token.stopMovement();
  else game.socket?.emit(`module.${MODULE_ID}`, { type: "stop", sceneId: token.parent?.id, tokenId: token.id, movementId });
}
async function letThrough(h) {
  const token = game.scenes?.get(h.sceneId)?.tokens?.get(h.tokenId);
  if (!token) return;
  if (h.movementId) {
    token.resumeMovement(h.movementId, h.id);
    return;
  }
  await token.update(
    h.changes,
    /** @type {never} */
    { animate: true, [FLAG]: { fallback: h.id } }
  );
}
async function whisperGMs(key, data, notice) {
  await ChatMessage.implementation.create({
    content: `<p>${escapeHtml(t(key, data))}</p>`,
    whisper: gmIds(),
    speaker: { alias: "vttbridge" },
    flags: { [FLAG]: { bridge: true, notice } }
  });
}
var Bridge = class {
  /** @param {{io?: Connect}} [opts] `io`: socket.io-client's (a test passes a stand-in's) */
  constructor({ io: connect = lookup2 } = {}) {
    this.io = connect;
    this.socket = null;
    this.sceneId = null;
    this.state = "idle";
    this.everConnected = false;
    this.chain = Promise.resolve();
    this.holds = /* @__PURE__ */ new Map();
    this.closedHolds = /* @__PURE__ */ new Set();
    this.positions = /* @__PURE__ */ new Map();
    this.turns = /* @__PURE__ */ new Map();
    this.lastSeq = null;
    this.seqKey = null;
    this.outbox = /* @__PURE__ */ new Map();
    this.heldMoves = /* @__PURE__ */ new Map();
    this.noticed = /* @__PURE__ */ new Set();
  }
  get connected() {
    return Boolean(this.socket?.connected);
  }
  // -- life cycle -----------------------------------------------------------------------------
  start() {
    this.stop();
    const url2 = String(setting("serverUrl") ?? "").trim();
    const world = String(setting("world") ?? "").trim();
    const key = String(setting("key") ?? "").trim();
    if (!url2 || !world || !key) {
      notify("warn", "Notify.NotLinked");
      return false;
    }
    let target;
    try {
      target = new URL(url2);
    } catch {
      notify("error", "Notify.BadUrl", { url: url2 });
      return false;
    }
    if (globalThis.location?.protocol === "https:" && target.protocol === "http:" && !isLoopback(target)) {
      notify("warn", "Notify.MixedContent");
    }
    this.seqKey = `${MODULE_ID}.lastSeq.${game.world?.id ?? "world"}.${world}.${hashText(`${target.origin}|${key}`)}`;
    this.lastSeq = storedSeq(this.seqKey);
    const base = target.pathname.replace(/\/+$/, "");
    this.state = "connecting";
    const socket = this.io(target.origin + NAMESPACE, {
      path: `${base}/socket.io`,
      transports: ["websocket", "polling"],
      reconnection: true,
      reconnectionDelay: 1e3,
      reconnectionDelayMax: 1e4,
      auth: (cb) => cb({
        world,
        key,
        protocol: PROTOCOL,
        // no record (a new browser, private mode, a reset key): the bridge resumes from the
        // world's acknowledged commands; last_seq 0 would send its whole history again
        ...this.lastSeq === null ? {} : { last_seq: this.lastSeq },
        client: {
          name: "vttbridge-foundry",
          version: VERSION,
          vtt: `foundry ${game.version ?? ""}`.trim(),
          system: game.system?.id
        }
      })
    });
    this.socket = socket;
    socket.on("connect", () => this.onConnect());
    socket.on("disconnect", (reason) => this.onDisconnect(reason));
    socket.on("connect_error", (err) => this.onConnectError(
      /** @type {Error & {data?: {code?: string, retry_after?: number}}} */
      err
    ));
    socket.on("command", (msg, ack) => this.onCommand(msg, ack));
    socket.on("notice", (notice) => this.onNotice(notice));
    return true;
  }
  stop() {
    if (this.socket) {
      this.socket.removeAllListeners();
      this.socket.disconnect();
      this.socket = null;
    }
    this.state = "idle";
  }
  onConnect() {
    const recovered = this.everConnected;
    this.everConnected = true;
    this.state = "connected";
    if (recovered) notify("info", "Notify.Recovered");
    else notify("info", "Notify.Linked", { url: String(setting("serverUrl")), world: String(setting("world")) });
    for (const [id, e] of this.outbox) if (e.event === "snapshot") this.outbox.delete(id);
    for (const e of [...this.outbox.values()]) this.emitQueued(e);
    this.sendSnapshot();
  }
  /** @param {string} reason */
  onDisconnect(reason) {
    if (!this.socket) return;
    if (this.state === "connected") notify("warn", "Notify.Lost", { reason });
    this.state = "lost";
    if (reason === "io server disconnect") {
      setTimeout(() => this.socket?.connect(), 2e3);
    }
    for (const h of [...this.holds.values()]) this.fallback(h, "Hold.Lost");
  }
  /** @param {Error & {data?: {code?: string, retry_after?: number}}} err */
  onConnectError(err) {
    const code = err?.data?.code;
    if (code && FINAL_REFUSALS.includes(code)) {
      notify("error", "Notify.Refused", { reason: err.message });
      this.state = "refused";
      this.socket?.disconnect();
      return;
    }
    if (this.state !== "lost" && this.state !== "retrying") {
      notify("warn", "Notify.Unreachable", { url: String(setting("serverUrl")), reason: String(err?.message ?? err) });
    }
    this.state = "retrying";
    const wait = Math.max(3, Number(err?.data?.retry_after) || 0) * 1e3;
    if (err?.data) setTimeout(() => this.socket && !this.socket.connected && this.socket.connect(), wait);
  }
  /**
   * What the bridge says of this connection: a companion of a version it does not support
   * (this module, older or newer than its range) is told so in plain words, once a session.
   * @param {Notice} n
   */
  onNotice(n) {
    if (n?.code !== "companion_version") return;
    const seen = `${n.companion?.name}@${n.companion?.version}`;
    if (this.noticed.has(seen)) return;
    this.noticed.add(seen);
    const data = { version: n.companion?.version ?? "?", range: n.supported ?? "?", bridge: n.bridge ?? "?" };
    notify("warn", n.older ? "Notify.ModuleTooOld" : "Notify.ModuleTooNew", data);
  }
  // -- outbound events ------------------------------------------------------------------------
  /**
   * Send an event; it stays in the outbox until the bridge acknowledges it, and goes again
   * after a reconnect if its ack was lost (socket.io buffers only while disconnected).
   * @param {string} event @param {Record<string, unknown>} payload
   */
  send(event, payload) {
    if (!this.socket) return;
    const body = { id: newId(), systemId: game.system?.id, ...payload };
    const entry = { event, body };
    this.outbox.set(String(body.id), entry);
    if (this.outbox.size > OUTBOX_MAX) {
      const [oldest] = this.outbox.keys();
      this.outbox.delete(oldest);
      console.warn(`vttbridge | more than ${OUTBOX_MAX} events wait for the bridge; the oldest is dropped`);
    }
    if (this.socket.connected) this.emitQueued(entry);
  }
  /** @param {{event: string, body: Record<string, unknown>}} entry */
  emitQueued(entry) {
    const { event, body } = entry;
    this.socket?.emit(event, body, (ack) => {
      this.outbox.delete(String(body.id));
      if (ack && !ack.ok) {
        console.warn(`vttbridge | ${event} refused: ${ack.error?.code}: ${ack.error?.message}`);
        if (event === "snapshot") notify("warn", "Notify.SceneRefused", { reason: ack.error?.message ?? "?" });
      }
    });
  }
  sendSnapshot() {
    const scene = activeScene();
    if (!scene) return;
    this.sceneId = scene.id;
    const tokens = scene.tokens.contents;
    const actorIds = new Set(tokens.map((tk) => tk.actorId).filter((id) => typeof id === "string"));
    const actors = [...actorIds].map((id) => game.actors?.get(id)).filter((a) => a !== void 0).map((a) => actorData(a));
    for (const tk of tokens) this.positions.set(tk.id ?? "", placeOf(tk));
    const combat = sceneCombat(scene);
    if (combat) this.turns.set(combat.id ?? "", turnOf(combat));
    const regions = (scene.regions?.contents ?? []).filter((r) => !isHoldRegion(r)).map((r) => ({ _id: r.id, name: r.name, shapes: plain(toObject(r).shapes ?? []), levels: toObject(r).levels ?? null }));
    this.send("snapshot", {
      scene: { _id: scene.id, name: scene.name, grid: gridData(scene), ...dimensionsOf(scene) },
      tokens: tokens.map((tk) => toObject(tk)),
      combat: combat ? combatData(combat) : null,
      users: (game.users?.contents ?? []).map((u) => ({ _id: u.id, name: u.name, role: u.role })),
      actors,
      regions,
      env: { foundry: game.version, generation: game.release?.generation, system: game.system?.id, systemVersion: game.system?.version }
    });
  }
  // -- commands -------------------------------------------------------------------------------
  /** @param {Command} msg @param {((ack: CommandAck) => void) | undefined} ack */
  onCommand(msg, ack) {
    const reply = typeof ack === "function" ? ack : () => {
    };
    this.chain = this.chain.then(async () => {
      if (!msg || typeof msg.seq !== "number" || typeof msg.op !== "string") {
        reply({ ok: false, error: { code: "bad_command", message: "A command needs a seq and an op." } });
        return;
      }
      if (this.lastSeq !== null && msg.seq <= this.lastSeq) {
        reply({ ok: true, duplicate: true });
        return;
      }
      try {
        const result = await this.apply(msg);
        this.setSeq(msg.seq);
        reply(result ? { ok: true, ...result } : { ok: true });
      } catch (e) {
        this.setSeq(msg.seq);
        console.warn(`vttbridge | command ${msg.seq} ${msg.op} failed:`, e);
        const err = (
          /** @type {{code?: string, message?: string}} */
          e
        );
        reply({ ok: false, error: { code: err.code ?? "apply_failed", message: String(err.message ?? e) } });
      }
    });
    return this.chain;
  }
  /** @param {number} seq */
  setSeq(seq) {
    if (this.lastSeq !== null && seq <= this.lastSeq) return;
    this.lastSeq = seq;
    try {
      if (this.seqKey) globalThis.localStorage?.setItem(this.seqKey, String(seq));
    } catch {
    }
  }
  /** @param {Command} msg @returns {Promise<Record<string, unknown> | null>} */
  async apply(msg) {
    const data = (
      /** @type {Record<string, any>} */
      msg.data ?? {}
    );
    const options = { ...msg.options ?? {}, [FLAG]: { ...markOf(msg.options) ?? {}, seq: msg.seq } };
    switch (msg.op) {
      case "ChatMessage.create": {
        const { whisper, flags, ...rest } = data;
        const message = { ...rest, whisper: whisperIds(whisper), flags: { ...flags ?? {}, [FLAG]: { ...flags?.[FLAG] ?? {}, seq: msg.seq } } };
        await ChatMessage.implementation.create(
          /** @type {never} */
          message,
          /** @type {never} */
          options
        );
        return null;
      }
      case "Token.update":
        return this.applyTokenUpdate(data, options);
      case "Combatant.update":
        return this.applyCombatant(data, options);
      case "Combat.update": {
        const combat = findCombat(data._id);
        if (!combat) throw new CommandError("no_combat", "There is no combat to update.");
        const update = {};
        if (data.round !== void 0) update.round = data.round;
        let turn = data.turn;
        if (data.tokenId) {
          const i = combat.turns.findIndex((c) => c.tokenId === data.tokenId);
          if (i >= 0) turn = i;
        }
        if (turn !== void 0 && turn !== null) update.turn = turn;
        await combat.update(
          update,
          /** @type {never} */
          options
        );
        return null;
      }
      case "Combat.delete": {
        const combat = findCombat(data._id);
        if (combat) await combat.delete(
          /** @type {never} */
          options
        );
        return null;
      }
      case "Scene.update": {
        const scene = data._id && game.scenes?.get(data._id) || activeScene();
        if (!scene) throw new CommandError("no_scene", "There is no scene to update.");
        const { _id, ...update } = data;
        await scene.update(
          update,
          /** @type {never} */
          options
        );
        if (regionHolds() && update.flags?.[FLAG]?.watch !== void 0) await syncHoldRegions(scene, options);
        return null;
      }
      case "Actor.update":
        return this.applyActorUpdate(data, options);
      case "Actor.toggleStatusEffect":
        return this.applyStatuses(data, options);
      case "User.query":
        return this.applyQuery(
          /** @type {PromptCommand} */
          data,
          msg.seq
        );
      default:
        throw new CommandError("unknown_op", `This module does not know the command ${msg.op}.`);
    }
  }
  /** @param {Record<string, any>} data @param {Options & {vttbridge: Mark}} options */
  async applyTokenUpdate(data, options) {
    const scene = data.sceneId && game.scenes?.get(data.sceneId) || activeScene();
    const token = scene?.tokens.get(data._id);
    if (!token) throw new CommandError("unknown_token", `No token ${data._id} on the scene.`);
    const { _id, sceneId, ...update } = data;
    const holdId = options[FLAG].hold;
    if (holdId) {
      const hold = this.holds.get(holdId);
      if (hold) {
        this.closeHold(hold);
        if (hold.movementId) {
          await this.releasePaused(hold, token, options[FLAG].moved ? null : update, options);
          return { hold: holdId };
        }
        const change = options[FLAG].moved ? hold.changes : update;
        await token.update(
          change,
          /** @type {never} */
          options
        );
        return { hold: holdId };
      }
      if (this.closedHolds.has(holdId)) return { hold: holdId, skipped: "the move already went through" };
    }
    await token.update(
      update,
      /** @type {never} */
      options
    );
    if ("x" in update || "y" in update) this.positions.set(token.id ?? "", placeOf(token));
    return null;
  }
  /**
   * v13+: the end of a paused movement. `elsewhere` null: the rules let it through, it resumes
   * (the mover's client goes on along its path); else it stops where it is paused and the token
   * goes where the rules put it, if that is somewhere else.
   * @param {Hold} hold @param {TokenDocument} token @param {{x?: number, y?: number} | null} elsewhere
   * @param {Options} options
   */
  async releasePaused(hold, token, elsewhere, options) {
    if (!hold.movementId) return;
    if (elsewhere === null) {
      token.resumeMovement(hold.movementId, hold.id);
      return;
    }
    stopMovement(token, hold.movementId);
    const { x = token.x, y = token.y } = elsewhere;
    if (x !== token.x || y !== token.y) await token.update(
      { x, y },
      /** @type {never} */
      { ...options, animate: false }
    );
  }
  /** @param {string | undefined} sceneId @param {string} tokenId @returns {TokenDocument} */
  findToken(sceneId, tokenId) {
    const scene = sceneId && game.scenes?.get(sceneId) || activeScene();
    const token = scene?.tokens.get(tokenId);
    if (!token) throw new CommandError("unknown_token", `No token ${tokenId} on the scene.`);
    return token;
  }
  /**
   * The rules' changes to a sheet. An unlinked token's are its own: its synthetic actor
   * (TokenDocument#actor) keeps them in the token's delta. Marked as ours, so the updateActor
   * hook that follows is not sent back.
   * @param {Record<string, any>} data @param {Options} options
   */
  async applyActorUpdate(data, options) {
    const actor = data.tokenId ? this.findToken(data.sceneId, data.tokenId).actor : game.actors?.get(data._id);
    if (!actor) throw new CommandError("unknown_actor", `No actor ${data._id ?? data.tokenId}.`);
    await actor.update(
      data.update ?? {},
      /** @type {never} */
      options
    );
    return null;
  }
  /**
   * The conditions the rules put on a character, on its token (effects.js).
   * @param {Record<string, any>} data @param {Options} options
   */
  async applyStatuses(data, options) {
    const token = this.findToken(data.sceneId, data.tokenId);
    for (
      const s of
      /** @type {StatusToggle[]} */
      data.statuses ?? []
    ) {
      statusEffect(s);
      await setStatus(token, s, options);
    }
    return null;
  }
  /**
   * A rules question (prompts.js): v13+ a query to the player's client (a dialog; the GM's own
   * here), answered by an `answer` event; else, or for a player who cannot be queried, the
   * whisper with answer buttons. The command is done once the question is out.
   * @param {PromptCommand} data @param {number} seq
   */
  async applyQuery(data, seq) {
    const user = data.userId ? game.users?.get(data.userId) : game.users?.activeGM;
    if (!queriesApi() || !user?.active) {
      const chat = { ...data.fallback, whisper: whisperIds(data.fallback.whisper) };
      chat.flags = { ...chat.flags ?? {}, [FLAG]: { ...chat.flags?.[FLAG] ?? {}, seq } };
      await ChatMessage.implementation.create(
        /** @type {never} */
        chat
      );
      return { asked: "chat" };
    }
    const question = { prompt: data.prompt, question: data.question, options: data.options, default: data.default, timeout: data.timeout ?? null, token: data.token ?? null };
    const timeout = data.timeout ? (data.timeout + QUERY_SLACK_S) * 1e3 : void 0;
    const asked = user.isSelf ? askDialog(question) : user.query(QUERY, question, timeout ? { timeout } : {});
    asked.then(
      (option) => {
        if (typeof option === "string") this.send("answer", { userId: user.id, prompt: data.prompt, option });
      },
      () => {
      }
      // not answered in time: the bridge applies the prompt's default
    );
    return { asked: user.id };
  }
  /** @param {Record<string, any>} data @param {Options} options */
  async applyCombatant(data, options) {
    const combat = findCombat(data.combatId);
    const sceneId = this.sceneId ?? activeScene()?.id ?? null;
    const combatant = combat && (data._id ? combat.combatants.get(data._id) : combat.combatants.find((c) => c.tokenId === data.tokenId));
    if (combatant) {
      await combatant.update(
        { initiative: data.initiative },
        /** @type {never} */
        options
      );
      return null;
    }
    const scene = sceneId ? game.scenes?.get(sceneId) : void 0;
    const token = scene?.tokens.get(data.tokenId);
    const entry = { tokenId: data.tokenId, sceneId, actorId: token?.actorId, initiative: data.initiative };
    if (combat) {
      await combat.createEmbeddedDocuments(
        "Combatant",
        [
          /** @type {never} */
          entry
        ],
        /** @type {never} */
        options
      );
      return null;
    }
    await Combat.implementation.create(
      /** @type {never} */
      { scene: sceneId, active: true, combatants: [entry] },
      /** @type {never} */
      options
    );
    return null;
  }
  // -- held moves -----------------------------------------------------------------------------
  /**
   * Hold a watched move until the bridge answers (see sdk/holds.py).
   * @param {Hold} h
   */
  async hold(h) {
    h.closed = false;
    this.holds.set(h.id, h);
    await null;
    if (!this.connected || !this.socket) {
      this.fallback(h, "Hold.NotConnected");
      return;
    }
    if (h.movementId) {
      this.heldMoves.set(h.movementId, h.id);
      if (this.heldMoves.size > CLOSED_HOLDS_KEPT) this.heldMoves.delete(this.heldMoves.keys().next().value ?? "");
    }
    const scene = game.scenes?.get(h.sceneId);
    const payload = {
      id: h.id,
      userId: h.userId,
      sceneId: h.sceneId,
      token: h.token,
      changes: h.changes,
      ...h.waypoints ? { waypoints: h.waypoints } : {},
      grid: scene ? gridData(scene) : void 0,
      hold: { id: h.id, budget_ms: h.budget },
      systemId: game.system?.id
    };
    let ack;
    try {
      ack = await this.socket.timeout(h.budget).emitWithAck("preUpdateToken", payload);
    } catch {
      this.fallback(h, "Hold.NoAnswer", { seconds: (h.budget / 1e3).toFixed(1) });
      return;
    }
    if (h.closed) return;
    if (!ack?.ok) {
      console.warn(`vttbridge | held move refused: ${ack?.error?.message}`);
      this.closeHold(h);
      await letThrough(h);
      return;
    }
    h.timer = setTimeout(() => this.fallback(h, "Hold.NoRuling"), h.maxHold);
  }
  /** @param {Hold} h */
  closeHold(h) {
    h.closed = true;
    if (h.timer) clearTimeout(h.timer);
    this.holds.delete(h.id);
    this.closedHolds.add(h.id);
    if (this.closedHolds.size > CLOSED_HOLDS_KEPT) this.closedHolds.delete(this.closedHolds.values().next().value ?? "");
  }
  /**
   * The bridge did not rule in time: the move goes through and is reported as completed,
   * under the held event's id (whichever reaches the bridge first counts).
   * @param {Hold} h @param {string} why an i18n key (VTTBRIDGE.Hold.*) @param {Record<string, string | number>} [data]
   */
  async fallback(h, why, data = {}) {
    if (h.closed) return;
    this.closeHold(h);
    await letThrough(h);
    await whisperGMs("Hold.WentThrough", { why: t(why, data), name: String(h.token?.name ?? t("Hold.AToken")) }, "hold-fallback");
  }
  // -- forwarded hooks ------------------------------------------------------------------------
  /**
   * @param {TokenDocument} doc @param {Record<string, any>} changed @param {Options} options @param {string} userId
   */
  onUpdateToken(doc, changed, options, userId) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = markOf(options);
    const before = this.positions.get(doc.id ?? "");
    const moved = "x" in changed || "y" in changed || "level" in changed;
    if (moved) this.positions.set(doc.id ?? "", placeOf(doc));
    if (ownWrite(mark)) return;
    if (
      /** @type {{_movement?: Record<string, unknown>}} */
      options?._movement?.[doc.id ?? ""]
    ) {
      changed = { ...changed };
      for (const k of ["x", "y", "elevation", "width", "height", "shape", "rotation", "level"]) delete changed[k];
    }
    const keys = ["x", "y", "level", "name", "hidden", "disposition", "actorId", "actorLink", "delta", "actorData"];
    if (!keys.some((k) => k in changed)) return;
    const payload = {
      userId,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: plain(changed),
      options: { diff: options?.diff, animate: options?.animate },
      grid: gridData(doc.parent)
    };
    if (mark?.fallback) payload.id = mark.fallback;
    if (before && moved) payload.origin = before;
    this.send("updateToken", payload);
  }
  /**
   * v13+: a completed leg of a movement, with its path and how each waypoint was moved. Legs
   * of a held movement resumed later go under the hold's id: the bridge has applied it. On v14
   * the leg that enters a hold region is left to the hold (the mover's client sends it whole).
   * @param {TokenDocument} doc @param {MovementV14} movement @param {Options} operation @param {User} user
   */
  onMoveToken(doc, movement, operation, user) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = markOf(operation);
    if (ownWrite(mark)) return;
    const size = gridSize(doc.parent);
    const held = [movement.id, ...movement.chain ?? []].map((id) => this.heldMoves.get(id)).find(Boolean);
    if (!held && !mark?.fallback && regionHolds() && enteredHold(doc, movement)) return;
    const points = explicitWaypoints(movement.passed?.waypoints ?? []);
    const origin = movement.origin ?? this.positions.get(doc.id ?? "");
    const start = cellOf(origin.x, origin.y, size, origin.width ?? doc.width ?? 1, origin.height ?? doc.height ?? 1);
    const end = cellOf(doc.x, doc.y, size, doc.width ?? 1, doc.height ?? 1);
    const level = levelOf(doc);
    if (start[0] === end[0] && start[1] === end[1] && (origin.level ?? null) === level && points.every((w) => sameCell(w, origin, size, doc))) return;
    const payload = {
      userId: user?.id,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: { x: doc.x, y: doc.y, ...level ? { level } : {} },
      options: {},
      origin: { x: origin.x, y: origin.y, ...origin.level ? { level: origin.level, elevation: origin.elevation } : {} },
      waypoints: points,
      grid: gridData(doc.parent),
      ...mark?.fallback || held ? { id: mark?.fallback ?? held } : {}
      // never applied twice
    };
    this.send("updateToken", payload);
  }
  /** @param {ChatMessage} msg @param {Options} options @param {string} userId */
  onChat(msg, options, userId) {
    if (msg.getFlag(MODULE_ID, "bridge") || markOf(options)) return;
    this.send("createChatMessage", { userId, message: toObject(msg) });
  }
  /** @param {Combat} combat @param {Record<string, unknown>} changed @param {Options} options @param {string} userId */
  onUpdateCombat(combat, changed, options, userId) {
    const prior = this.turns.get(combat.id ?? "") ?? null;
    this.turns.set(combat.id ?? "", turnOf(combat));
    if (markOf(options)) return;
    if (!("turn" in changed) && !("round" in changed)) return;
    const sceneId = sceneIdOf(combat);
    if (sceneId && sceneId !== this.sceneId) return;
    this.send("updateCombat", { userId, changes: plain(changed), combat: combatData(combat), prior });
  }
  /** @param {Combat} combat @param {Options} options @param {string} userId */
  onDeleteCombat(combat, options, userId) {
    this.turns.delete(combat.id ?? "");
    if (markOf(options)) return;
    this.send("deleteCombat", { userId, combat: { _id: combat.id, round: combat.round ?? 0 } });
  }
  /**
   * @param {"createCombatant" | "updateCombatant" | "deleteCombatant"} event @param {Combatant} combatant
   * @param {Record<string, unknown>} changed @param {Options} options @param {string} userId
   */
  onCombatant(event, combatant, changed, options, userId) {
    if (markOf(options)) return;
    if (event === "updateCombatant" && !("initiative" in changed)) return;
    if (combatant.sceneId && combatant.sceneId !== this.sceneId) return;
    this.send(event, { userId, combatId: combatant.parent?.id, combatant: toObject(combatant), changes: plain(changed) });
  }
  /** @param {Actor} actor @param {Record<string, unknown>} changed @param {Options} options @param {string} userId */
  onUpdateActor(actor, changed, options, userId) {
    if (markOf(options)) return;
    this.send("updateActor", { userId, actorUuid: actor.uuid, actor: { _id: actor.id, name: actor.name, type: actor.type }, changes: plain(changed) });
  }
  /** @param {Scene} scene @param {Record<string, unknown>} changed */
  onUpdateScene(scene, changed) {
    if ("active" in changed && scene.active) this.sendSnapshot();
    else if (scene.id === this.sceneId && ("grid" in changed || "regions" in changed)) this.sendSnapshot();
  }
};
function isLoopback(url2) {
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(url2.hostname);
}
function placeOf(doc) {
  return { x: doc.x, y: doc.y, level: levelOf(doc), elevation: doc.elevation ?? 0 };
}
function gridData(scene) {
  const g = scene.grid;
  if (g && typeof g === "object") return { type: g.type, size: g.size, distance: g.distance, units: g.units };
  return { size: gridSize(scene), distance: 5, units: "ft" };
}
function sceneIdOf(combat) {
  const s = (
    /** @type {unknown} */
    combat.scene
  );
  if (typeof s === "string") return s;
  return (
    /** @type {{id?: string} | null} */
    s?.id ?? /** @type {{scene?: string}} */
    combat._source?.scene ?? null
  );
}
function sceneCombat(scene) {
  const here = (game.combats?.contents ?? []).filter((c) => sceneIdOf(c) === scene.id);
  return here.find((c) => c.active) ?? here[0] ?? null;
}
function findCombat(id) {
  if (id) return game.combats?.get(id) ?? null;
  const scene = activeScene();
  return (scene && sceneCombat(scene)) ?? game.combat ?? null;
}
function combatData(combat) {
  const data = toObject(combat);
  data.turns = combat.turns.map((c) => toObject(c));
  return data;
}
function turnOf(combat) {
  const current = combat.turns[combat.turn ?? -1];
  return { round: combat.round, turn: combat.turn, tokenId: current?.tokenId ?? null, combatantId: current?.id ?? null };
}
function actorData(actor) {
  const o = toObject(actor);
  return { _id: o._id ?? actor.id, name: o.name, type: o.type, system: o.system ?? {}, ownership: o.ownership ?? {}, flags: { [FLAG]: o.flags?.[FLAG] ?? {} } };
}
var relayed = /* @__PURE__ */ new Map();
function holdBase(doc, watch) {
  return {
    sceneId: doc.parent?.id ?? "",
    tokenId: doc.id ?? "",
    userId: game.user?.id ?? null,
    budget: Number(watch.budget_ms ?? 1500),
    maxHold: Number(watch.max_hold_ms ?? 9e4)
  };
}
function sendHold(h) {
  if (bridge && isPrimaryGM()) bridge.hold(h);
  else relayHold(h);
}
function onPreUpdateToken(doc, changes, options, userId) {
  if (movementApi()) return true;
  if (markOf(options)) return true;
  if (userId && game.user && userId !== game.user.id) return true;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch) return true;
  if (!watchedMove(doc, changes, watch, gridSize(scene))) return true;
  if (!gmOnline()) return true;
  sendHold({ ...holdBase(doc, watch), id: newId(), token: toObject(doc), changes: plain(changes) });
  return false;
}
var pausedHere = /* @__PURE__ */ new Set();
var PAUSED_KEPT = 200;
function rememberPaused(id) {
  pausedHere.add(id);
  if (pausedHere.size > PAUSED_KEPT) pausedHere.delete(pausedHere.values().next().value ?? "");
}
function hookEntry(doc, cells, watch, levels, whole) {
  if (!regionHolds()) return watchedEntry(doc, cells, watch, levels);
  const any = watchedEntry(doc, cells, watch, levels, (m) => m.cells === null);
  const cell = watchedEntry(doc, cells, watch, levels, (m) => m.cells !== null);
  if (cell >= 0 && (any < 0 || cell < any)) return whole && cell === cells.length - 1 ? cell : -1;
  return any;
}
function onPreMoveToken(doc, move, options) {
  if (markOf(options)) return true;
  if ((move.chain ?? []).some((id) => pausedHere.has(id))) return true;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return true;
  const size = gridSize(scene);
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const passed = move.passed?.waypoints ?? [];
  const { cells, legs, levels } = stepCells([move.origin, ...passed], size, w, h);
  const at = hookEntry(doc, cells, watch, levels, !move.pending?.waypoints?.length);
  if (at < 0) return true;
  const leg = legs[at];
  const stop = at === 1 && leg === 1 ? [move.origin.x, move.origin.y] : xyOf(cells[at - 1], size, w, h);
  const waypoints = [
    ...moveWaypoints(passed.slice(0, leg - 1)),
    { x: stop[0], y: stop[1], action: passed[leg - 1]?.action, snapped: true, explicit: false, checkpoint: true },
    ...moveWaypoints([...passed.slice(leg - 1), ...move.pending?.waypoints ?? []])
  ];
  const { method, autoRotate, showRuler, constrainOptions } = move;
  setTimeout(() => doc.move(
    /** @type {never} */
    waypoints,
    /** @type {never} */
    { method, autoRotate, showRuler, constrainOptions, [FLAG]: { split: true } }
  ), 0);
  return false;
}
function onMoveToken(doc, movement, operation, user) {
  if (bridge && bridge.sceneId !== null) bridge.onMoveToken(doc, movement, operation, user);
  if (isSelf(user)) maybePause(doc, movement);
}
function maybePause(doc, movement) {
  const now = movementOf(doc);
  if (!now || now.id !== movement.id || now.state !== "pending") return;
  if ([movement.id, ...movement.chain ?? []].some((id2) => pausedHere.has(id2))) return;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return;
  const here = { x: doc._source.x, y: doc._source.y, level: levelOf(doc) };
  const pending = now.pending?.waypoints ?? [];
  const { cells, levels } = stepCells([here, ...pending], gridSize(scene), doc.width ?? 1, doc.height ?? 1);
  if (hookEntry(doc, cells, watch, levels, true) !== 1) return;
  const id = newId();
  if (!doc.pauseMovement(id)) return;
  rememberPaused(now.id);
  const rest = explicitWaypoints(pending);
  const last = rest[rest.length - 1] ?? here;
  sendHold({
    ...holdBase(doc, watch),
    id,
    token: toObject(doc),
    changes: { x: last.x, y: last.y, ...last.level ? { level: last.level } : {} },
    waypoints: rest,
    movementId: now.id
  });
}
function onEnterHold(doc, movement) {
  const now = movementOf(doc);
  if (!now || now.id !== movement.id || now.state !== "pending") return;
  if ([movement.id, ...movement.chain ?? []].some((id2) => pausedHere.has(id2))) return;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return;
  const id = newId();
  if (!doc.pauseMovement(id)) return;
  rememberPaused(now.id);
  const origin = movement.origin;
  const path = explicitWaypoints([...movement.passed?.waypoints ?? [], ...now.pending?.waypoints ?? []]);
  const last = path[path.length - 1];
  sendHold({
    ...holdBase(doc, watch),
    id,
    token: { ...toObject(doc), x: origin.x, y: origin.y, elevation: origin.elevation, ...origin.level ? { level: origin.level } : {} },
    changes: { x: last.x, y: last.y, ...last.level ? { level: last.level } : {} },
    waypoints: path,
    movementId: now.id
  });
}
function relayHold(h) {
  game.socket?.emit(`module.${MODULE_ID}`, { type: "hold", hold: h });
  relayed.set(
    h.id,
    setTimeout(async () => {
      relayed.delete(h.id);
      await letThrough(h);
      await whisperGMs("Hold.WentThrough", { why: t("Hold.GmSilent"), name: String(h.token?.name ?? t("Hold.AToken")) }, "hold-fallback");
    }, h.budget + RELAY_SLACK_MS)
  );
}
function onModuleSocket(raw) {
  if (!raw || typeof raw !== "object") return;
  const msg = (
    /** @type {{type?: string, hold?: Hold, id?: string, sceneId?: string, tokenId?: string, movementId?: string}} */
    raw
  );
  if (msg.type === "hold" && msg.hold && bridge && isPrimaryGM()) {
    game.socket?.emit(`module.${MODULE_ID}`, { type: "holding", id: msg.hold.id });
    bridge.hold(msg.hold);
  } else if (msg.type === "holding" && msg.id) {
    const timer = relayed.get(msg.id);
    if (timer) {
      clearTimeout(timer);
      relayed.delete(msg.id);
    }
  } else if (msg.type === "stop" && msg.sceneId && msg.tokenId) {
    const token = game.scenes?.get(msg.sceneId)?.tokens.get(msg.tokenId);
    if (token && token.movement?.id === msg.movementId && isSelf(token.movement.user)) token.stopMovement();
  }
}
function wireAnswers(message, html) {
  const root = html instanceof HTMLElement ? html : html?.[0];
  if (!root?.querySelectorAll || !message.getFlag(MODULE_ID, "prompt")) return;
  for (const button of root.querySelectorAll("[data-vttbridge-answer]")) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      const answer = (
        /** @type {HTMLElement} */
        button.dataset.vttbridgeAnswer
      );
      ChatMessage.implementation.create({ content: `!answer ${answer}`, speaker: { alias: game.user?.name } });
    });
  }
}
var bridge = null;
function refreshRole() {
  const primary = isPrimaryGM();
  if (primary && !bridge) {
    const made = new Bridge();
    bridge = made;
    globalThis.vttbridge = made;
    made.start();
  } else if (!primary && bridge) {
    bridge.stop();
    bridge = null;
  }
}
function restart() {
  if (bridge) bridge.start();
  else refreshRole();
}
function registerSettings() {
  const common = { config: true, restricted: true, onChange: () => restart() };
  const settings = game.settings;
  if (!settings) return;
  settings.register(MODULE_ID, "serverUrl", {
    ...common,
    name: "VTTBRIDGE.Settings.ServerUrl.Name",
    hint: "VTTBRIDGE.Settings.ServerUrl.Hint",
    scope: "world",
    type: String,
    default: "http://localhost:8787"
  });
  settings.register(MODULE_ID, "world", {
    ...common,
    name: "VTTBRIDGE.Settings.World.Name",
    hint: "VTTBRIDGE.Settings.World.Hint",
    scope: "world",
    type: String,
    default: "default"
  });
  settings.register(MODULE_ID, "ruler", {
    name: "VTTBRIDGE.Settings.Ruler.Name",
    hint: "VTTBRIDGE.Settings.Ruler.Hint",
    scope: "client",
    config: true,
    type: Boolean,
    default: true
  });
  settings.register(MODULE_ID, "key", {
    ...common,
    name: "VTTBRIDGE.Settings.Key.Name",
    hint: "VTTBRIDGE.Settings.Key.Hint",
    scope: "client",
    type: String,
    default: ""
  });
}
function installRuler() {
  if (!movementApi() || !CONFIG.Token) return;
  const Base = (
    /** @type {typeof foundry.canvas.placeables.tokens.TokenRuler | undefined} */
    CONFIG.Token.rulerClass ?? foundry.canvas?.placeables?.tokens?.TokenRuler
  );
  if (typeof Base !== "function") return;
  CONFIG.Token.rulerClass = budgetRuler(Base, () => setting("ruler") !== false);
}
function installHoldRegions() {
  if (generation() < 14 || !CONFIG.RegionBehavior || !foundry.data?.regionBehaviors?.RegionBehaviorType) return;
  CONFIG.RegionBehavior.dataModels[HOLD_TYPE] = holdBehaviorClass(onEnterHold);
}
var forward = (fn) => (...args) => {
  if (bridge && bridge.sceneId !== null) fn(bridge, ...args);
};
Hooks.once("init", () => {
  registerSettings();
  installRuler();
  installHoldRegions();
  registerQueries();
});
Hooks.once("ready", () => {
  game.socket?.on(`module.${MODULE_ID}`, onModuleSocket);
  refreshRole();
});
Hooks.on("userConnected", () => refreshRole());
Hooks.on("preUpdateToken", (doc, changes, options, userId) => onPreUpdateToken(doc, changes, options, userId));
Hooks.on("preMoveToken", (doc, move, options) => onPreMoveToken(doc, move, options));
Hooks.on("moveToken", (doc, movement, operation, user) => onMoveToken(doc, movement, operation, user));
Hooks.on("updateToken", forward((b, doc, changed, options, userId) => b.onUpdateToken(doc, changed, options, userId)));
Hooks.on("createChatMessage", forward((b, msg, options, userId) => b.onChat(msg, options, userId)));
Hooks.on("updateCombat", forward((b, combat, changed, options, userId) => b.onUpdateCombat(combat, changed, options, userId)));
Hooks.on("deleteCombat", forward((b, combat, options, userId) => b.onDeleteCombat(combat, options, userId)));
Hooks.on("createCombatant", forward((b, c, options, userId) => b.onCombatant("createCombatant", c, {}, options, userId)));
Hooks.on("updateCombatant", forward((b, c, changed, options, userId) => b.onCombatant("updateCombatant", c, changed, options, userId)));
Hooks.on("deleteCombatant", forward((b, c, options, userId) => b.onCombatant("deleteCombatant", c, {}, options, userId)));
Hooks.on("updateActor", forward((b, actor, changed, options, userId) => b.onUpdateActor(actor, changed, options, userId)));
Hooks.on("updateScene", (scene, changed) => bridge?.onUpdateScene(scene, changed));
Hooks.on("renderChatMessage", wireAnswers);
Hooks.on("renderChatMessageHTML", wireAnswers);
export {
  Bridge,
  MODULE_ID,
  RULER_COLORS,
  VERSION,
  bridge,
  budgetTier,
  movementApi,
  pathLength,
  plannedLength,
  statusEffect
};
//# sourceMappingURL=vttbridge.js.map
