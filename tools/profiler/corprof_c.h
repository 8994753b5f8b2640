/*
 * tools/profiler/corprof_c.h - the parts of the CoreCLR profiling API that
 * the gcscope profiler uses, declared in C.
 *
 * Written from the interface definitions of dotnet/runtime
 * src/coreclr/inc/corprof.idl and the IMetaDataImport part of cor.h: a COM
 * interface is a pointer to a table of function pointers whose first
 * three are IUnknown's; every slot takes the object as its first argument.
 * The slot ORDER is what matters: it must be the IDL's declaration order,
 * inherited interfaces first. Slots we never call or implement are kept
 * as placeholders so that the ones after them land at the right index.
 *
 * Types as the runtime's PAL defines them on Linux/macOS (LP64): HRESULT,
 * ULONG, DWORD and BOOL are 32-bit; WCHAR is a 16-bit UTF-16 unit; the IDs
 * (ClassID, ObjectID, ModuleID ...) are pointer-sized. The calling
 * convention is the platform's C one (STDMETHODCALLTYPE is empty off
 * Windows).
 */
#ifndef GCSCOPE_PROFILER_CORPROF_C_H
#define GCSCOPE_PROFILER_CORPROF_C_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef uint32_t DWORD;
typedef int32_t BOOL;
typedef uint16_t WCHAR;
typedef uint32_t mdToken;
typedef uintptr_t ClassID, ObjectID, ModuleID;

#define S_OK ((HRESULT)0)
#define S_FALSE ((HRESULT)1)
#define E_NOINTERFACE ((HRESULT)0x80004002u)
#define E_FAIL ((HRESULT)0x80004005u)
#define E_OUTOFMEMORY ((HRESULT)0x8007000Eu)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110u)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111u)
#define PROF_SUCCEEDED(hr) ((HRESULT)(hr) >= 0)

/* A GUID as laid out in memory (Data1..Data4). */
typedef struct prof_guid {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} prof_guid;

/* Event mask bits (COR_PRF_MONITOR). */
#define PROF_MONITOR_GC 0x00000080u
#define PROF_MONITOR_OBJECT_ALLOCATED 0x00000100u
#define PROF_ENABLE_OBJECT_ALLOCATED 0x00800000u

/* COR_PRF_GC_GENERATION, as GetObjectGeneration gives it. */
enum { PROF_GEN_LOH = 3, PROF_GEN_POH = 4 };

typedef struct prof_generation_range {
    int32_t generation; /* COR_PRF_GC_GENERATION */
    ObjectID start;
    uintptr_t length;
    uintptr_t reserved;
} prof_generation_range;

/* A slot this profiler never calls or implements with its real arguments
 * (see profiler.c: unused callbacks return S_OK). */
typedef HRESULT (*prof_slot)(void *self);

/* ------------------------------------------------------------------ */
/* IUnknown, IClassFactory                                            */

#define PROF_IUNKNOWN_SLOTS(T)                                                 \
    HRESULT (*QueryInterface)(T *self, const prof_guid *riid, void **out);     \
    ULONG (*AddRef)(T *self);                                                  \
    ULONG (*Release)(T *self)

typedef struct prof_unknown prof_unknown;
typedef struct prof_unknown_vtbl {
    PROF_IUNKNOWN_SLOTS(prof_unknown);
} prof_unknown_vtbl;
struct prof_unknown {
    const prof_unknown_vtbl *vtbl;
};

typedef struct prof_class_factory prof_class_factory;
typedef struct prof_class_factory_vtbl {
    PROF_IUNKNOWN_SLOTS(prof_class_factory);
    HRESULT (*CreateInstance)(prof_class_factory *self, prof_unknown *outer,
                              const prof_guid *riid, void **out);
    HRESULT (*LockServer)(prof_class_factory *self, BOOL lock);
} prof_class_factory_vtbl;
struct prof_class_factory {
    const prof_class_factory_vtbl *vtbl;
};

/* ------------------------------------------------------------------ */
/* ICorProfilerCallback .. ICorProfilerCallback11                      */

typedef struct prof_callback prof_callback;
typedef struct prof_callback_vtbl {
    PROF_IUNKNOWN_SLOTS(prof_callback);
    /* ICorProfilerCallback */
    HRESULT (*Initialize)(prof_callback *self, prof_unknown *info);
    HRESULT (*Shutdown)(prof_callback *self);
    prof_slot AppDomainCreationStarted, AppDomainCreationFinished;
    prof_slot AppDomainShutdownStarted, AppDomainShutdownFinished;
    prof_slot AssemblyLoadStarted, AssemblyLoadFinished;
    prof_slot AssemblyUnloadStarted, AssemblyUnloadFinished;
    prof_slot ModuleLoadStarted, ModuleLoadFinished;
    prof_slot ModuleUnloadStarted, ModuleUnloadFinished, ModuleAttachedToAssembly;
    prof_slot ClassLoadStarted, ClassLoadFinished, ClassUnloadStarted, ClassUnloadFinished;
    prof_slot FunctionUnloadStarted;
    prof_slot JITCompilationStarted, JITCompilationFinished;
    prof_slot JITCachedFunctionSearchStarted, JITCachedFunctionSearchFinished;
    prof_slot JITFunctionPitched, JITInlining;
    prof_slot ThreadCreated, ThreadDestroyed, ThreadAssignedToOSThread;
    prof_slot RemotingClientInvocationStarted, RemotingClientSendingMessage;
    prof_slot RemotingClientReceivingReply, RemotingClientInvocationFinished;
    prof_slot RemotingServerReceivingMessage, RemotingServerInvocationStarted;
    prof_slot RemotingServerInvocationReturned, RemotingServerSendingReply;
    prof_slot UnmanagedToManagedTransition, ManagedToUnmanagedTransition;
    prof_slot RuntimeSuspendStarted, RuntimeSuspendFinished, RuntimeSuspendAborted;
    prof_slot RuntimeResumeStarted, RuntimeResumeFinished;
    prof_slot RuntimeThreadSuspended, RuntimeThreadResumed;
    prof_slot MovedReferences; /* 32-bit lengths: MovedReferences2 is used */
    HRESULT (*ObjectAllocated)(prof_callback *self, ObjectID object, ClassID class_id);
    prof_slot ObjectsAllocatedByClass, ObjectReferences, RootReferences;
    prof_slot ExceptionThrown;
    prof_slot ExceptionSearchFunctionEnter, ExceptionSearchFunctionLeave;
    prof_slot ExceptionSearchFilterEnter, ExceptionSearchFilterLeave;
    prof_slot ExceptionSearchCatcherFound;
    prof_slot ExceptionOSHandlerEnter, ExceptionOSHandlerLeave;
    prof_slot ExceptionUnwindFunctionEnter, ExceptionUnwindFunctionLeave;
    prof_slot ExceptionUnwindFinallyEnter, ExceptionUnwindFinallyLeave;
    prof_slot ExceptionCatcherEnter, ExceptionCatcherLeave;
    prof_slot COMClassicVTableCreated, COMClassicVTableDestroyed;
    prof_slot ExceptionCLRCatcherFound, ExceptionCLRCatcherExecute;
    /* ICorProfilerCallback2 */
    prof_slot ThreadNameChanged;
    HRESULT (*GarbageCollectionStarted)(prof_callback *self, int generations,
                                        const BOOL *collected, int reason);
    prof_slot SurvivingReferences; /* 32-bit lengths: SurvivingReferences2 is used */
    HRESULT (*GarbageCollectionFinished)(prof_callback *self);
    prof_slot FinalizeableObjectQueued, RootReferences2, HandleCreated, HandleDestroyed;
    /* ICorProfilerCallback3 */
    prof_slot InitializeForAttach, ProfilerAttachComplete, ProfilerDetachSucceeded;
    /* ICorProfilerCallback4 */
    prof_slot ReJITCompilationStarted, GetReJITParameters, ReJITCompilationFinished;
    prof_slot ReJITError;
    HRESULT (*MovedReferences2)(prof_callback *self, ULONG count, const ObjectID *old_start,
                                const ObjectID *new_start, const size_t *length);
    HRESULT (*SurvivingReferences2)(prof_callback *self, ULONG count, const ObjectID *start,
                                    const size_t *length);
    /* ICorProfilerCallback5 .. 11 */
    prof_slot ConditionalWeakTableElementReferences;
    prof_slot GetAssemblyReferences;
    prof_slot ModuleInMemorySymbolsUpdated;
    prof_slot DynamicMethodJITCompilationStarted, DynamicMethodJITCompilationFinished;
    prof_slot DynamicMethodUnloaded;
    prof_slot EventPipeEventDelivered, EventPipeProviderCreated;
    HRESULT (*LoadAsNotificationOnly)(prof_callback *self, BOOL *only);
} prof_callback_vtbl;
struct prof_callback {
    const prof_callback_vtbl *vtbl;
};

/* ------------------------------------------------------------------ */
/* ICorProfilerInfo .. ICorProfilerInfo4 (the slots up to GetObjectSize2) */

typedef struct prof_info prof_info;
typedef struct prof_info_vtbl {
    PROF_IUNKNOWN_SLOTS(prof_info);
    /* ICorProfilerInfo */
    prof_slot GetClassFromObject, GetClassFromToken, GetCodeInfo, GetEventMask;
    prof_slot GetFunctionFromIP, GetFunctionFromToken, GetHandleFromThread;
    prof_slot GetObjectSize; /* 32-bit: GetObjectSize2 is used */
    HRESULT (*IsArrayClass)(prof_info *self, ClassID class_id, uint32_t *element_type,
                            ClassID *element_class, ULONG *rank);
    prof_slot GetThreadInfo, GetCurrentThreadID, GetClassIDInfo, GetFunctionInfo;
    HRESULT (*SetEventMask)(prof_info *self, DWORD events);
    prof_slot SetEnterLeaveFunctionHooks, SetFunctionIDMapper;
    prof_slot GetTokenAndMetaDataFromFunction, GetModuleInfo;
    HRESULT (*GetModuleMetaData)(prof_info *self, ModuleID module, DWORD open_flags,
                                 const prof_guid *riid, prof_unknown **out);
    prof_slot GetILFunctionBody, GetILFunctionBodyAllocator, SetILFunctionBody;
    prof_slot GetAppDomainInfo, GetAssemblyInfo, SetFunctionReJIT, ForceGC;
    prof_slot SetILInstrumentedCodeMap, GetInprocInspectionInterface;
    prof_slot GetInprocInspectionIThisThread, GetThreadContext;
    prof_slot BeginInprocDebugging, EndInprocDebugging, GetILToNativeMapping;
    /* ICorProfilerInfo2 */
    prof_slot DoStackSnapshot, SetEnterLeaveFunctionHooks2, GetFunctionInfo2;
    prof_slot GetStringLayout, GetClassLayout;
    HRESULT (*GetClassIDInfo2)(prof_info *self, ClassID class_id, ModuleID *module,
                               mdToken *type_def, ClassID *parent, uint32_t max_args,
                               uint32_t *n_args, ClassID *args);
    prof_slot GetCodeInfo2, GetClassFromTokenAndTypeArgs, GetFunctionFromTokenAndTypeArgs;
    prof_slot EnumModuleFrozenObjects, GetArrayObjectInfo, GetBoxClassLayout;
    prof_slot GetThreadAppDomain, GetRVAStaticAddress, GetAppDomainStaticAddress;
    prof_slot GetThreadStaticAddress, GetContextStaticAddress, GetStaticFieldInfo;
    HRESULT (*GetGenerationBounds)(prof_info *self, ULONG cap, ULONG *count,
                                   prof_generation_range *ranges);
    HRESULT (*GetObjectGeneration)(prof_info *self, ObjectID object,
                                   prof_generation_range *range);
    prof_slot GetNotifiedExceptionClauseInfo;
    /* ICorProfilerInfo3 */
    prof_slot EnumJITedFunctions, RequestProfilerDetach, SetFunctionIDMapper2;
    prof_slot GetStringLayout2, SetEnterLeaveFunctionHooks3;
    prof_slot SetEnterLeaveFunctionHooks3WithInfo, GetFunctionEnter3Info;
    prof_slot GetFunctionLeave3Info, GetFunctionTailcall3Info, EnumModules;
    prof_slot GetRuntimeInformation, GetThreadStaticAddress2;
    prof_slot GetAppDomainsContainingModule, GetModuleInfo2;
    /* ICorProfilerInfo4 */
    prof_slot EnumThreads, InitializeCurrentThread, RequestReJIT, RequestRevert;
    prof_slot GetCodeInfo3, GetFunctionFromIP2, GetReJITIDs, GetILToNativeMapping2;
    prof_slot EnumJITedFunctions2;
    HRESULT (*GetObjectSize2)(prof_info *self, ObjectID object, size_t *size);
} prof_info_vtbl;
struct prof_info {
    const prof_info_vtbl *vtbl;
};

/* ------------------------------------------------------------------ */
/* IMetaDataImport (cor.h), up to GetNestedClassProps                  */

typedef struct prof_metadata prof_metadata;
typedef struct prof_metadata_vtbl {
    PROF_IUNKNOWN_SLOTS(prof_metadata);
    prof_slot CloseEnum, CountEnum, ResetEnum, EnumTypeDefs, EnumInterfaceImpls;
    prof_slot EnumTypeRefs, FindTypeDefByName, GetScopeProps, GetModuleFromScope;
    HRESULT (*GetTypeDefProps)(prof_metadata *self, mdToken type_def, WCHAR *name,
                               ULONG name_cap, ULONG *name_len, DWORD *flags,
                               mdToken *extends);
    prof_slot GetInterfaceImplProps, GetTypeRefProps, ResolveTypeRef, EnumMembers;
    prof_slot EnumMembersWithName, EnumMethods, EnumMethodsWithName, EnumFields;
    prof_slot EnumFieldsWithName, EnumParams, EnumMemberRefs, EnumMethodImpls;
    prof_slot EnumPermissionSets, FindMember, FindMethod, FindField, FindMemberRef;
    prof_slot GetMethodProps, GetMemberRefProps, EnumProperties, EnumEvents, GetEventProps;
    prof_slot EnumMethodSemantics, GetMethodSemantics, GetClassLayout, GetFieldMarshal;
    prof_slot GetRVA, GetPermissionSetProps, GetSigFromToken, GetModuleRefProps;
    prof_slot EnumModuleRefs, GetTypeSpecFromToken, GetNameFromToken, EnumUnresolvedMethods;
    prof_slot GetUserString, GetPinvokeMap, EnumSignatures, EnumTypeSpecs, EnumUserStrings;
    prof_slot GetParamForMethodIndex, EnumCustomAttributes, GetCustomAttributeProps;
    prof_slot FindTypeRef, GetMemberProps, GetFieldProps, GetPropertyProps, GetParamProps;
    prof_slot GetCustomAttributeByName, IsValidToken;
    /* The enclosing type of a nested one (S_OK), or an error when not nested. */
    HRESULT (*GetNestedClassProps)(prof_metadata *self, mdToken nested, mdToken *enclosing);
} prof_metadata_vtbl;
struct prof_metadata {
    const prof_metadata_vtbl *vtbl;
};

#endif
