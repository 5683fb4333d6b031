--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: approval_cards; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_cards (
    channel text NOT NULL,
    ts text NOT NULL,
    request_id text NOT NULL,
    posted_at bigint NOT NULL,
    seq bigint NOT NULL
);


--
-- Name: approval_cards_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.approval_cards ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.approval_cards_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: approval_votes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_votes (
    request_id text NOT NULL,
    user_id text NOT NULL,
    at bigint NOT NULL,
    seq bigint NOT NULL
);


--
-- Name: approval_votes_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.approval_votes ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.approval_votes_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: approvals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approvals (
    request_id text NOT NULL,
    conversation_id text NOT NULL,
    transcript_id text NOT NULL,
    tool_call_id text NOT NULL,
    turn_id text NOT NULL,
    tool_name text NOT NULL,
    permission_type text NOT NULL,
    summary text DEFAULT ''::text NOT NULL,
    details_json text NOT NULL,
    args_hash text NOT NULL,
    reason text,
    requested_by text NOT NULL,
    required_approvals integer DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    resolved_at bigint,
    decision text,
    decided_by text,
    always_allow integer DEFAULT 0 NOT NULL,
    kv_snapshot_json text,
    seq bigint NOT NULL,
    decision_reason text,
    CONSTRAINT approvals_decision_check CHECK ((decision = ANY (ARRAY['allowed'::text, 'denied'::text, 'expired'::text])))
);


--
-- Name: approvals_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.approvals ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.approvals_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_events (
    id bigint NOT NULL,
    at bigint NOT NULL,
    actor text NOT NULL,
    kind text NOT NULL,
    approval_id text,
    conversation_id text,
    data_json text DEFAULT '{}'::text NOT NULL,
    previous_hash text,
    hash text
);


--
-- Name: audit_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    id text NOT NULL,
    team_id text NOT NULL,
    channel_id text NOT NULL,
    thread_ts text NOT NULL,
    created_at bigint NOT NULL,
    kv_json text DEFAULT '{"values":{},"children":{}}'::text NOT NULL
);


--
-- Name: grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.grants (
    id bigint NOT NULL,
    scope text NOT NULL,
    scope_id text NOT NULL,
    tool_name text NOT NULL,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    source_request_id text,
    revoked_by text,
    match_json text,
    args_hash text,
    expires_at bigint,
    uses_left integer,
    CONSTRAINT grants_scope_check CHECK ((scope = ANY (ARRAY['conversation'::text, 'channel'::text])))
);


--
-- Name: grants_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.grants ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.grants_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: holdfast_meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.holdfast_meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: inbound_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.inbound_messages (
    key text NOT NULL,
    seq bigint NOT NULL,
    lane text NOT NULL,
    payload_json text NOT NULL,
    received_at bigint NOT NULL
);


--
-- Name: inbound_messages_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.inbound_messages_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: inbound_messages_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.inbound_messages_seq_seq OWNED BY public.inbound_messages.seq;


--
-- Name: live_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.live_messages (
    turn_id text NOT NULL,
    channel text NOT NULL,
    ts text NOT NULL,
    kind text NOT NULL,
    owner text NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT live_messages_kind_check CHECK ((kind = ANY (ARRAY['stream'::text, 'message'::text])))
);


--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    seq bigint NOT NULL,
    conversation_id text NOT NULL,
    transcript_id text NOT NULL,
    turn_id text NOT NULL,
    role text NOT NULL,
    content text,
    tool_calls_json text,
    tool_call_id text,
    created_at bigint NOT NULL,
    CONSTRAINT messages_role_check CHECK ((role = ANY (ARRAY['system'::text, 'user'::text, 'assistant'::text, 'tool'::text])))
);


--
-- Name: messages_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.messages ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.messages_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    id bigint NOT NULL,
    key text NOT NULL,
    conversation_id text NOT NULL,
    turn_id text,
    request_id text,
    message_json text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at bigint NOT NULL,
    claim_owner text,
    claim_token integer DEFAULT 0 NOT NULL,
    claim_expires_at bigint,
    in_doubt integer DEFAULT 0 NOT NULL,
    progress_json text DEFAULT '{"sent":[]}'::text NOT NULL,
    last_error text,
    created_at bigint NOT NULL,
    finished_at bigint,
    CONSTRAINT outbox_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text])))
);


--
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outbox ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: tool_executions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tool_executions (
    transcript_id text NOT NULL,
    tool_call_id text NOT NULL,
    conversation_id text NOT NULL,
    turn_id text NOT NULL,
    tool_name text DEFAULT ''::text NOT NULL,
    args_hash text NOT NULL,
    status text NOT NULL,
    started_at bigint NOT NULL,
    finished_at bigint,
    lease_token integer,
    seq bigint NOT NULL,
    CONSTRAINT tool_executions_status_check CHECK ((status = ANY (ARRAY['started'::text, 'finished'::text])))
);


--
-- Name: tool_executions_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.tool_executions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.tool_executions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: turns; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.turns (
    seq bigint NOT NULL,
    id text NOT NULL,
    conversation_id text NOT NULL,
    status text NOT NULL,
    trigger_key text NOT NULL,
    trigger_ts text DEFAULT ''::text NOT NULL,
    requested_by text NOT NULL,
    input_text text NOT NULL,
    lease_owner text,
    lease_expires_at bigint,
    lease_token integer DEFAULT 0 NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    error_code text,
    error_message text,
    answer_posted_at bigint,
    ready_at bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT turns_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'awaiting_approval'::text, 'completed'::text, 'failed'::text])))
);


--
-- Name: turns_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.turns ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.turns_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: inbound_messages seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbound_messages ALTER COLUMN seq SET DEFAULT nextval('public.inbound_messages_seq_seq'::regclass);


--
-- Data for Name: approval_cards; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: approval_votes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.approval_votes OVERRIDING SYSTEM VALUE VALUES ('apr_N68a59NKRtAd2vFgwNbpoh1j', 'UAPPROVER', 1736154000000, 1);


--
-- Data for Name: approvals; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.approvals OVERRIDING SYSTEM VALUE VALUES ('apr_N68a59NKRtAd2vFgwNbpoh1j', 'T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST:C0OPS:1700.1', 'call_1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'restart_service', 'restart', 'restart web', '{"arguments":{"service":"web"}}', '7b487d9ce815e0011c9a0b17013c6e7376fd1376111a8e12dc32f7b944e4f24d', NULL, 'UREQUESTER', 1, 1736154000000, 1736240400000, 1736154000000, 'allowed', 'UAPPROVER', 1, '{"values":{},"children":{}}', 1, NULL);
INSERT INTO public.approvals OVERRIDING SYSTEM VALUE VALUES ('apr_Ev0Wb8kR_rdYp-_GuPh5uzoQ', 'T0HOLDFAST:C0OPS:1700.2', 'T0HOLDFAST:C0OPS:1700.2', 'call_1', 'turn_ed4d586b-3649-49f8-97d2-8edd79467639', 'restart_service', 'restart', 'restart db', '{"arguments":{"service":"db"}}', 'd9ad933e9dd8d6a07e5c2ee362f2d2769869fb75533175355fafe3ad5a0f1a01', NULL, 'UREQUESTER', 1, 1736154000000, 1736240400000, NULL, NULL, NULL, 0, '{"values":{},"children":{}}', 2, NULL);
INSERT INTO public.approvals OVERRIDING SYSTEM VALUE VALUES ('apr_cvac4AcGCKpU5SavgXqytCkK', 'T0HOLDFAST:C0OPS:1700.3', 'T0HOLDFAST:C0OPS:1700.3', 'call_1', 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'restart_service', 'restart', 'restart cache', '{"arguments":{"service":"cache"}}', 'c7147506e036de69e77c024a0aceb55cb56dfadf64a08dc76eb8c0008c05aa74', NULL, 'UREQUESTER', 1, 1736154000000, 1736240400000, NULL, NULL, NULL, 0, NULL, 3, NULL);
INSERT INTO public.approvals OVERRIDING SYSTEM VALUE VALUES ('apr_WSyeB-m27xxSLEUEs6lzD-CX', 'T0HOLDFAST:C0OPS:1700.3', 'T0HOLDFAST:C0OPS:1700.3', 'call_2', 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'restart_service', 'restart', 'restart queue', '{"arguments":{"service":"queue"}}', '8cba491ff4dee16f32f8973fe034d41b5ae7944ba0f8169478c3684470bd95f4', NULL, 'UREQUESTER', 1, 1736154000000, 1736240400000, NULL, NULL, NULL, 0, '{"values":{},"children":{}}', 4, NULL);


--
-- Data for Name: audit_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (1, 1736154000000, 'UREQUESTER', 'approval.requested', 'apr_N68a59NKRtAd2vFgwNbpoh1j', 'T0HOLDFAST:C0OPS:1700.1', '{"tool":"restart_service","summary":"restart web"}', NULL, 'acfa41278d608cbcfdf0e41f0239d2b012e50efac7a6d902d0452afc629b7ab1');
INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (2, 1736154000000, 'UAPPROVER', 'approval.allowed', 'apr_N68a59NKRtAd2vFgwNbpoh1j', 'T0HOLDFAST:C0OPS:1700.1', '{"tool":"restart_service","always":true}', 'acfa41278d608cbcfdf0e41f0239d2b012e50efac7a6d902d0452afc629b7ab1', '9234bd248372b1ef2a35e9d2d0c30e91ebcfdd4c77edf1063fe5058c543a5b19');
INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (3, 1736154000000, 'UAPPROVER', 'grant.created', 'apr_N68a59NKRtAd2vFgwNbpoh1j', 'T0HOLDFAST:C0OPS:1700.1', '{"grantId":1,"scope":"conversation","scopeId":"T0HOLDFAST:C0OPS:1700.1","tool":"restart_service"}', '9234bd248372b1ef2a35e9d2d0c30e91ebcfdd4c77edf1063fe5058c543a5b19', 'b932238bcad7c236aa3978898eae14a2048b7c99e1306388db4f52acd254b066');
INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (4, 1736154000000, 'UREQUESTER', 'approval.requested', 'apr_Ev0Wb8kR_rdYp-_GuPh5uzoQ', 'T0HOLDFAST:C0OPS:1700.2', '{"tool":"restart_service","summary":"restart db"}', 'b932238bcad7c236aa3978898eae14a2048b7c99e1306388db4f52acd254b066', 'ec20634886e1c9482e5a9576da42bed5008e7c6aaa87ed2139bea13c763a79f0');
INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (5, 1736154000000, 'UREQUESTER', 'approval.requested', 'apr_cvac4AcGCKpU5SavgXqytCkK', 'T0HOLDFAST:C0OPS:1700.3', '{"tool":"restart_service","summary":"restart cache"}', 'ec20634886e1c9482e5a9576da42bed5008e7c6aaa87ed2139bea13c763a79f0', '1251b6d1bd28003e1f90cea388c33bb8a3b9cd69369387e86ecb76f6a6cc82ac');
INSERT INTO public.audit_events OVERRIDING SYSTEM VALUE VALUES (6, 1736154000000, 'UREQUESTER', 'approval.requested', 'apr_WSyeB-m27xxSLEUEs6lzD-CX', 'T0HOLDFAST:C0OPS:1700.3', '{"tool":"restart_service","summary":"restart queue"}', '1251b6d1bd28003e1f90cea388c33bb8a3b9cd69369387e86ecb76f6a6cc82ac', 'e5de4cc363c8f03744c747493e41945a15078d1a5ee6e2200213f81e3af95fed');


--
-- Data for Name: conversations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversations VALUES ('T0HOLDFAST:C0OPS:1700.4', 'T0HOLDFAST', 'C0OPS', '1700.4', 1736154000000, '{"values":{},"children":{}}');
INSERT INTO public.conversations VALUES ('T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST', 'C0OPS', '1700.1', 1736154000000, '{"values":{},"children":{}}');
INSERT INTO public.conversations VALUES ('T0HOLDFAST:C0OPS:1700.2', 'T0HOLDFAST', 'C0OPS', '1700.2', 1736154000000, '{"values":{},"children":{}}');
INSERT INTO public.conversations VALUES ('T0HOLDFAST:C0OPS:1700.3', 'T0HOLDFAST', 'C0OPS', '1700.3', 1736154000000, '{"values":{},"children":{}}');


--
-- Data for Name: grants; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.grants OVERRIDING SYSTEM VALUE VALUES (1, 'conversation', 'T0HOLDFAST:C0OPS:1700.1', 'restart_service', 'UAPPROVER', 1736154000000, NULL, 'apr_N68a59NKRtAd2vFgwNbpoh1j', NULL, NULL, NULL, NULL, NULL);


--
-- Data for Name: holdfast_meta; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.holdfast_meta VALUES ('schema_version', '9');
INSERT INTO public.holdfast_meta VALUES ('compatible_from_schema', '8');


--
-- Data for Name: inbound_messages; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: live_messages; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: messages; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (1, 'T0HOLDFAST:C0OPS:1700.4', 'T0HOLDFAST:C0OPS:1700.4', 'turn_c81fa4a4-70fc-4765-bd03-6f9b8c454561', 'user', 'run the nightly job', NULL, NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (2, 'T0HOLDFAST:C0OPS:1700.4', 'T0HOLDFAST:C0OPS:1700.4', 'turn_c81fa4a4-70fc-4765-bd03-6f9b8c454561', 'assistant', NULL, '[{"id":"call_1","name":"slow_job","arguments":"{}"}]', NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (3, 'T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'user', 'restart web', NULL, NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (4, 'T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'assistant', NULL, '[{"id":"call_1","name":"restart_service","arguments":"{\"service\":\"web\"}"}]', NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (5, 'T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'tool', 'restarted web', '{"outcome":{"type":"succeeded"}}', 'call_1', 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (6, 'T0HOLDFAST:C0OPS:1700.1', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'assistant', 'web is restarted', NULL, NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (7, 'T0HOLDFAST:C0OPS:1700.2', 'T0HOLDFAST:C0OPS:1700.2', 'turn_ed4d586b-3649-49f8-97d2-8edd79467639', 'user', 'restart db', NULL, NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (8, 'T0HOLDFAST:C0OPS:1700.2', 'T0HOLDFAST:C0OPS:1700.2', 'turn_ed4d586b-3649-49f8-97d2-8edd79467639', 'assistant', NULL, '[{"id":"call_1","name":"restart_service","arguments":"{\"service\":\"db\"}"}]', NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (9, 'T0HOLDFAST:C0OPS:1700.3', 'T0HOLDFAST:C0OPS:1700.3', 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'user', 'restart cache and queue', NULL, NULL, 1736154000000);
INSERT INTO public.messages OVERRIDING SYSTEM VALUE VALUES (10, 'T0HOLDFAST:C0OPS:1700.3', 'T0HOLDFAST:C0OPS:1700.3', 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'assistant', NULL, '[{"id":"call_1","name":"restart_service","arguments":"{\"service\":\"cache\"}"},{"id":"call_2","name":"restart_service","arguments":"{\"service\":\"queue\"}"}]', NULL, 1736154000000);


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox OVERRIDING SYSTEM VALUE VALUES (1, 'card:apr_N68a59NKRtAd2vFgwNbpoh1j', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'apr_N68a59NKRtAd2vFgwNbpoh1j', '{"type":"approval-card","requestId":"apr_N68a59NKRtAd2vFgwNbpoh1j"}', 'pending', 0, 1736154000000, NULL, 0, NULL, 0, '{"sent":[]}', NULL, 1736154000000, NULL);
INSERT INTO public.outbox OVERRIDING SYSTEM VALUE VALUES (2, 'card-update:apr_N68a59NKRtAd2vFgwNbpoh1j:allowed', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'apr_N68a59NKRtAd2vFgwNbpoh1j', '{"type":"card-update","requestId":"apr_N68a59NKRtAd2vFgwNbpoh1j"}', 'pending', 0, 1736154000000, NULL, 0, NULL, 0, '{"sent":[]}', NULL, 1736154000000, NULL);
INSERT INTO public.outbox OVERRIDING SYSTEM VALUE VALUES (3, 'answer:turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', NULL, '{"type":"answer","turnId":"turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0","text":"web is restarted"}', 'pending', 0, 1736154000000, NULL, 0, NULL, 0, '{"sent":[]}', NULL, 1736154000000, NULL);
INSERT INTO public.outbox OVERRIDING SYSTEM VALUE VALUES (4, 'card:apr_Ev0Wb8kR_rdYp-_GuPh5uzoQ', 'T0HOLDFAST:C0OPS:1700.2', 'turn_ed4d586b-3649-49f8-97d2-8edd79467639', 'apr_Ev0Wb8kR_rdYp-_GuPh5uzoQ', '{"type":"approval-card","requestId":"apr_Ev0Wb8kR_rdYp-_GuPh5uzoQ"}', 'pending', 0, 1736154000000, NULL, 0, NULL, 0, '{"sent":[]}', NULL, 1736154000000, NULL);
INSERT INTO public.outbox OVERRIDING SYSTEM VALUE VALUES (5, 'plan:apr_cvac4AcGCKpU5SavgXqytCkK', 'T0HOLDFAST:C0OPS:1700.3', 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'apr_cvac4AcGCKpU5SavgXqytCkK', '{"type":"approval-plan","requestIds":["apr_cvac4AcGCKpU5SavgXqytCkK","apr_WSyeB-m27xxSLEUEs6lzD-CX"]}', 'pending', 0, 1736154000000, NULL, 0, NULL, 0, '{"sent":[]}', NULL, 1736154000000, NULL);


--
-- Data for Name: tool_executions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.tool_executions OVERRIDING SYSTEM VALUE VALUES ('T0HOLDFAST:C0OPS:1700.4', 'call_1', 'T0HOLDFAST:C0OPS:1700.4', 'turn_c81fa4a4-70fc-4765-bd03-6f9b8c454561', 'slow_job', '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a', 'started', 1736154000000, NULL, NULL, 1);
INSERT INTO public.tool_executions OVERRIDING SYSTEM VALUE VALUES ('T0HOLDFAST:C0OPS:1700.1', 'call_1', 'T0HOLDFAST:C0OPS:1700.1', 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'restart_service', '7b487d9ce815e0011c9a0b17013c6e7376fd1376111a8e12dc32f7b944e4f24d', 'finished', 1736154000000, 1736154000000, 2, 2);


--
-- Data for Name: turns; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.turns OVERRIDING SYSTEM VALUE VALUES (1, 'turn_c81fa4a4-70fc-4765-bd03-6f9b8c454561', 'T0HOLDFAST:C0OPS:1700.4', 'running', 'C0OPS:1700.4', '1700.4', 'UREQUESTER', 'run the nightly job', 'vm#9489#e5e80a537fc4', 1736154015000, 1, 1, NULL, NULL, NULL, NULL, 1736154000000, 1736154000000);
INSERT INTO public.turns OVERRIDING SYSTEM VALUE VALUES (2, 'turn_7144fac1-cf1b-4540-8020-c6ace2cfd7b0', 'T0HOLDFAST:C0OPS:1700.1', 'completed', 'C0OPS:1700.1', '1700.1', 'UREQUESTER', 'restart web', NULL, NULL, 2, 2, NULL, NULL, NULL, NULL, 1736154000000, 1736154000000);
INSERT INTO public.turns OVERRIDING SYSTEM VALUE VALUES (3, 'turn_ed4d586b-3649-49f8-97d2-8edd79467639', 'T0HOLDFAST:C0OPS:1700.2', 'awaiting_approval', 'C0OPS:1700.2', '1700.2', 'UREQUESTER', 'restart db', NULL, NULL, 1, 1, NULL, NULL, NULL, NULL, 1736154000000, 1736154000000);
INSERT INTO public.turns OVERRIDING SYSTEM VALUE VALUES (4, 'turn_cec32462-864a-44cd-af00-4eda9e167110', 'T0HOLDFAST:C0OPS:1700.3', 'awaiting_approval', 'C0OPS:1700.3', '1700.3', 'UREQUESTER', 'restart cache and queue', NULL, NULL, 1, 1, NULL, NULL, NULL, NULL, 1736154000000, 1736154000000);


--
-- Name: approval_cards_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.approval_cards_seq_seq', 1, false);


--
-- Name: approval_votes_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.approval_votes_seq_seq', 1, true);


--
-- Name: approvals_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.approvals_seq_seq', 4, true);


--
-- Name: audit_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_events_id_seq', 6, true);


--
-- Name: grants_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.grants_id_seq', 1, true);


--
-- Name: inbound_messages_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.inbound_messages_seq_seq', 1, false);


--
-- Name: messages_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.messages_seq_seq', 10, true);


--
-- Name: outbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_id_seq', 5, true);


--
-- Name: tool_executions_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tool_executions_seq_seq', 2, true);


--
-- Name: turns_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.turns_seq_seq', 4, true);


--
-- Name: approval_cards approval_cards_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_cards
    ADD CONSTRAINT approval_cards_pkey PRIMARY KEY (channel, ts, request_id);


--
-- Name: approval_votes approval_votes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_votes
    ADD CONSTRAINT approval_votes_pkey PRIMARY KEY (request_id, user_id);


--
-- Name: approvals approvals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approvals
    ADD CONSTRAINT approvals_pkey PRIMARY KEY (request_id);


--
-- Name: approvals approvals_transcript_id_tool_call_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approvals
    ADD CONSTRAINT approvals_transcript_id_tool_call_id_key UNIQUE (transcript_id, tool_call_id);


--
-- Name: audit_events audit_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_events
    ADD CONSTRAINT audit_events_pkey PRIMARY KEY (id);


--
-- Name: conversations conversations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);


--
-- Name: conversations conversations_team_id_channel_id_thread_ts_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_team_id_channel_id_thread_ts_key UNIQUE (team_id, channel_id, thread_ts);


--
-- Name: grants grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT grants_pkey PRIMARY KEY (id);


--
-- Name: holdfast_meta holdfast_meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.holdfast_meta
    ADD CONSTRAINT holdfast_meta_pkey PRIMARY KEY (key);


--
-- Name: inbound_messages inbound_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbound_messages
    ADD CONSTRAINT inbound_messages_pkey PRIMARY KEY (key);


--
-- Name: live_messages live_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.live_messages
    ADD CONSTRAINT live_messages_pkey PRIMARY KEY (turn_id);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (seq);


--
-- Name: outbox outbox_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_key_key UNIQUE (key);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: tool_executions tool_executions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tool_executions
    ADD CONSTRAINT tool_executions_pkey PRIMARY KEY (transcript_id, tool_call_id);


--
-- Name: turns turns_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turns
    ADD CONSTRAINT turns_id_key UNIQUE (id);


--
-- Name: turns turns_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turns
    ADD CONSTRAINT turns_pkey PRIMARY KEY (seq);


--
-- Name: turns turns_trigger_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turns
    ADD CONSTRAINT turns_trigger_key_key UNIQUE (trigger_key);


--
-- Name: approval_cards_by_request; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cards_by_request ON public.approval_cards USING btree (request_id);


--
-- Name: approvals_by_turn; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approvals_by_turn ON public.approvals USING btree (turn_id);


--
-- Name: approvals_decided; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approvals_decided ON public.approvals USING btree (resolved_at) WHERE (resolved_at IS NOT NULL);


--
-- Name: approvals_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approvals_expiry ON public.approvals USING btree (expires_at) WHERE (resolved_at IS NULL);


--
-- Name: approvals_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approvals_pending ON public.approvals USING btree (conversation_id) WHERE (resolved_at IS NULL);


--
-- Name: audit_by_approval; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_by_approval ON public.audit_events USING btree (approval_id) WHERE (approval_id IS NOT NULL);


--
-- Name: audit_by_conversation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_by_conversation ON public.audit_events USING btree (conversation_id, id);


--
-- Name: audit_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_by_time ON public.audit_events USING btree (at);


--
-- Name: grants_by_scope; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX grants_by_scope ON public.grants USING btree (scope, scope_id, tool_name) WHERE (revoked_at IS NULL);


--
-- Name: messages_by_transcript; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_transcript ON public.messages USING btree (transcript_id, seq);


--
-- Name: messages_by_turn; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_turn ON public.messages USING btree (turn_id, seq);


--
-- Name: messages_one_result_per_call; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX messages_one_result_per_call ON public.messages USING btree (transcript_id, tool_call_id) WHERE (tool_call_id IS NOT NULL);


--
-- Name: outbox_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_due ON public.outbox USING btree (next_attempt_at) WHERE (status = 'pending'::text);


--
-- Name: outbox_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_pending ON public.outbox USING btree (conversation_id, id) WHERE (status = 'pending'::text);


--
-- Name: turns_by_conversation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX turns_by_conversation ON public.turns USING btree (conversation_id, status, seq);


--
-- Name: turns_one_active_per_conversation; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX turns_one_active_per_conversation ON public.turns USING btree (conversation_id) WHERE (status = ANY (ARRAY['running'::text, 'awaiting_approval'::text]));


--
-- Name: turns_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX turns_open ON public.turns USING btree (status, lease_expires_at) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text, 'awaiting_approval'::text]));


--
-- Name: turns_open_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX turns_open_by_user ON public.turns USING btree (requested_by) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text, 'awaiting_approval'::text]));


--
-- Name: turns_ready; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX turns_ready ON public.turns USING btree (ready_at) WHERE ((status = 'awaiting_approval'::text) AND (ready_at IS NOT NULL));


--
-- Name: approval_cards approval_cards_request_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_cards
    ADD CONSTRAINT approval_cards_request_id_fkey FOREIGN KEY (request_id) REFERENCES public.approvals(request_id);


--
-- Name: approval_votes approval_votes_request_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_votes
    ADD CONSTRAINT approval_votes_request_id_fkey FOREIGN KEY (request_id) REFERENCES public.approvals(request_id);


--
-- Name: approvals approvals_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approvals
    ADD CONSTRAINT approvals_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);


--
-- Name: approvals approvals_turn_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approvals
    ADD CONSTRAINT approvals_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES public.turns(id);


--
-- Name: messages messages_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);


--
-- Name: messages messages_turn_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES public.turns(id);


--
-- Name: tool_executions tool_executions_turn_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tool_executions
    ADD CONSTRAINT tool_executions_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES public.turns(id);


--
-- Name: turns turns_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turns
    ADD CONSTRAINT turns_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);


--
-- PostgreSQL database dump complete
--


