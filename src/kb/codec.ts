import {createHash} from 'node:crypto';
import {closeSync, openSync, readSync} from 'node:fs';
import type {DocumentCatalog, IndexCodec, IndexData, IndexItem, MetadataTypes} from 'vectra';

/**
 * What an index file says about itself. Kept in the file (not a side manifest) so the file and its
 * description can never disagree: a file is replaced whole by an atomic rename or not at all.
 */
export type IndexInfo = {
	kind: string;
	region: string;
	/** Embedder id the vectors were made with; another embedder means another index. */
	embedder: string;
	dimension: number;
	/** Content hash of the source entries the index holds; a change means a rebuild. */
	contentHash: string;
	builtAt: string;
};

export type IndexHeader = IndexInfo & {
	format: typeof FORMAT;
	version: number;
	codec: 'int8-cosine';
	vectraVersion: number;
	metadataConfig: IndexData['metadata_config'];
	count: number;
	metaBytes: number;
	vectorBytes: number;
	/** sha256 of everything after the header: a torn or truncated file fails this check. */
	sha256: string;
};

const MAGIC = Buffer.from('CCVEC01\n', 'latin1');
const FORMAT = 'cultureconverse-vectors';
export const INDEX_FILE = 'index.ccv';

/** The index file is unreadable: torn, truncated, from another format, or failing its checksum. */
export class CorruptIndexError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CorruptIndexError';
	}
}

/**
 * A compact Vectra IndexCodec: one file of a JSON header, a JSON metadata block and int8 vectors.
 *
 * Why int8 without a scale: retrieval only ever compares vectors by cosine, and cosine is invariant to
 * scaling each vector, so each vector is stored as round(127 * v / max|v|) and its norm recomputed on
 * load. That is 4x smaller than float32 (16x smaller than Vectra's JSON) and the loaded Int8Array views
 * are scanned by Vectra's own cosine loop without being expanded. Rounding moves cosines by about
 * 1e-3, which can only swap near-ties.
 */
export class CompactCodec implements IndexCodec {
	readonly extension = '.ccv';
	/** Header of the last index read, so the loader can check it against what it expects. */
	lastHeader: IndexHeader | undefined;

	/** @param info written into the header of every index this codec serialises */
	constructor(private readonly info?: IndexInfo) {}

	serializeIndex(data: IndexData): Buffer {
		if (!this.info) throw new Error('CompactCodec: no index info to write (construct it with the index description)');
		const dimension = this.info.dimension;
		const vectors = Buffer.alloc(data.items.length * dimension);
		const metadata: unknown[] = [];
		data.items.forEach((item, index) => {
			if (item.vector.length !== dimension) throw new Error(`CompactCodec: item '${item.id}' has ${item.vector.length} dimensions, expected ${dimension}`);
			quantizeInto(item.vector, vectors, index * dimension);
			metadata.push(item.metadataFile ? [item.id, item.metadata, item.metadataFile] : [item.id, item.metadata]);
		});
		const metaBytes = Buffer.from(JSON.stringify(metadata), 'utf8');
		const sha256 = createHash('sha256').update(metaBytes).update(vectors).digest('hex');
		const header: IndexHeader = {
			format: FORMAT,
			version: 1,
			codec: 'int8-cosine',
			...this.info,
			vectraVersion: data.version,
			metadataConfig: data.metadata_config,
			count: data.items.length,
			metaBytes: metaBytes.length,
			vectorBytes: vectors.length,
			sha256,
		};
		const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
		const length = Buffer.alloc(4);
		length.writeUInt32LE(headerBytes.length);
		return Buffer.concat([MAGIC, length, headerBytes, metaBytes, vectors]);
	}

	deserializeIndex(buffer: Buffer): IndexData {
		const header = parseHeader(buffer.subarray(0, Math.min(buffer.length, 1 << 20)), buffer.length);
		const start = MAGIC.length + 4 + header.headerBytes;
		const end = start + header.metaBytes + header.vectorBytes;
		if (buffer.length !== end) throw new CorruptIndexError(`index file is ${buffer.length} bytes, its header says ${end}`);
		const body = buffer.subarray(start, end);
		if (createHash('sha256').update(body).digest('hex') !== header.sha256) throw new CorruptIndexError('index file fails its checksum');
		const metadata = JSON.parse(body.subarray(0, header.metaBytes).toString('utf8')) as Array<[string, Record<string, MetadataTypes>, string?]>;
		if (metadata.length !== header.count) throw new CorruptIndexError(`index holds ${metadata.length} items, its header says ${header.count}`);
		// One copy into a fresh Int8Array so the item views do not pin the whole file buffer.
		const vectors = new Int8Array(header.vectorBytes);
		vectors.set(new Int8Array(body.buffer, body.byteOffset + header.metaBytes, header.vectorBytes));
		const d = header.dimension;
		const items: IndexItem[] = metadata.map(([id, meta, metadataFile], index) => {
			const vector = vectors.subarray(index * d, (index + 1) * d);
			let sum = 0;
			for (let i = 0; i < d; i++) sum += vector[i]! * vector[i]!;
			// Vectra types vectors as number[]; its cosine loop only indexes them, which an Int8Array supports.
			const item: IndexItem = {id, metadata: meta, vector: vector as unknown as number[], norm: Math.sqrt(sum)};
			if (metadataFile) item.metadataFile = metadataFile;
			return item;
		});
		const {headerBytes: _, ...rest} = header;
		this.lastHeader = rest;
		return {version: header.vectraVersion, metadata_config: header.metadataConfig, items};
	}

	serializeCatalog(catalog: DocumentCatalog): Buffer {
		return Buffer.from(JSON.stringify(catalog), 'utf8');
	}

	deserializeCatalog(buffer: Buffer): DocumentCatalog {
		return JSON.parse(buffer.toString('utf8')) as DocumentCatalog;
	}

	serializeMetadata(metadata: Record<string, MetadataTypes>): Buffer {
		return Buffer.from(JSON.stringify(metadata), 'utf8');
	}

	deserializeMetadata(buffer: Buffer): Record<string, MetadataTypes> {
		return JSON.parse(buffer.toString('utf8')) as Record<string, MetadataTypes>;
	}
}

/** Symmetric int8 quantisation of one vector (see CompactCodec for why no scale is kept). */
export function quantizeInto(vector: ArrayLike<number>, out: Buffer, offset: number): void {
	if (vector instanceof Int8Array) {
		out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.length), offset);
		return;
	}
	let max = 0;
	for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
	if (max === 0) return;
	const scale = 127 / max;
	const view = new Int8Array(out.buffer, out.byteOffset + offset, vector.length);
	for (let i = 0; i < vector.length; i++) view[i] = Math.round(vector[i]! * scale);
}

function parseHeader(buffer: Buffer, fileBytes: number): IndexHeader & {headerBytes: number} {
	if (buffer.length < MAGIC.length + 4 || !buffer.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptIndexError('not a cultureconverse index file (bad magic bytes)');
	const headerBytes = buffer.readUInt32LE(MAGIC.length);
	if (MAGIC.length + 4 + headerBytes > Math.min(buffer.length, fileBytes)) throw new CorruptIndexError('index header is truncated');
	let header: IndexHeader;
	try {
		header = JSON.parse(buffer.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerBytes).toString('utf8')) as IndexHeader;
	} catch {
		throw new CorruptIndexError('index header is not valid JSON');
	}
	if (header.format !== FORMAT || header.version !== 1 || header.codec !== 'int8-cosine') throw new CorruptIndexError(`unsupported index format ${header.format} v${header.version}`);
	return {...header, headerBytes};
}

/**
 * Reads only the header of an index file (a few hundred bytes), to decide whether the index is
 * current without loading its vectors. Throws CorruptIndexError for an unreadable header.
 */
export function readIndexHeader(file: string): IndexHeader {
	const fd = openSync(file, 'r');
	try {
		const head = Buffer.alloc(64 * 1024);
		const read = readSync(fd, head, 0, head.length, 0);
		const {headerBytes: _, ...header} = parseHeader(head.subarray(0, read), read);
		return header;
	} finally {
		closeSync(fd);
	}
}
